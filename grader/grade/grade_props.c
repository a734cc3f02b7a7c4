/* grade_props.c -- every property a spec may name; see grade_props.h. */
#include "grade/grade_props.h"

#include <string.h>

#include "props/prop_premise.h"
#include "selfcheck/prop_written.h"

const struct prop_def *gprop_find(const char *function, const char *property)
{
    if (strcmp(function, "written") == 0)
        return sc_written_find(property);
    return prop_find(function, property);
}

int gprop_check_case(const struct spec_test *t, const struct spec_case *c,
                     struct err *e)
{
    const struct prop_def *d = gprop_find(t->function, t->property);

    if (d == NULL)
        return err_set(e, NULL, 0, 0, "unknown property '%s' for function '%s'",
                       t->property, t->function);
    if (t->hint_premise && !ppr_known(t->hint_premise))
        return err_set(e, NULL, 0, 0, "unknown hint_premise '%s' (props/prop_premise.h "
                       "lists them)", t->hint_premise);
    return prop_check_def(d, t, c, e);
}

/* grade_deadline.c -- see grade_deadline.h. */
#include "grade/grade_deadline.h"

#include <math.h>
#include <string.h>

#include "core/util.h"

double gdl_first(const struct spec_test *t, int have_reference)
{
    if (t->timeout_ms > 0)
        return (double)t->timeout_ms;
    return have_reference ? GDL_FLOOR_MS : GDL_DEFAULT_MS;
}

double gdl_measured(const struct impl *reference, const struct grade_opts *o,
                    const char *submission_dir, const struct prop_def *d,
                    const struct spec_test *t, const struct spec_case *c, struct err *e)
{
    struct prop_env env = {*reference, reference, o->seed, 0, submission_dir, o->orc};
    struct prop_verdict v;
    const struct prop_ctx x = {&env, t, c, d, &v, e};
    double t0;

    memset(&v, 0, sizeof v);
    t0 = ut_thread_cpu_ms();
    if (d->run(&x) < 0)
        return -1;
    return fmax(GDL_FLOOR_MS, GDL_FACTOR * (ut_thread_cpu_ms() - t0));
}

/* grade_repro.c -- see grade_repro.h. */
#include "grade/grade_repro.h"

#include <string.h>

#include "core/strbuf.h"

char *grp_command(const struct grade_opts *o, const struct spec_test *t, size_t k)
{
    /* The written part has its own target: it grades answers.yaml. */
    const char *pre = o->repro_pre ? o->repro_pre
                      : strcmp(t->function, "written") == 0 ? "make check-written ONLY="
                      : "make check ONLY=";
    struct sb sb;
    int bad;

    sb_init(&sb, 0);
    bad = sb_adds(&sb, pre) || sb_adds(&sb, "'^");
    for (const char *p = t->id; *p && !bad; p++)
        bad = (*p == '.' && sb_addch(&sb, '\\')) || sb_addch(&sb, *p);
    bad = bad || sb_addf(&sb, "#%zu$'", k + 1) ||
          sb_adds(&sb, o->repro_post ? o->repro_post : "");
    if (bad) {
        sb_release(&sb);
        return NULL;
    }
    return sb_detach(&sb, NULL);
}

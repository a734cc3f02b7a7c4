/* prop_written.c -- the written part's checks (placeholder table). */
#include "prop_defs.h"

const struct prop_def prop_written_defs[] = {
    {0},
};
const size_t prop_written_count = 0;

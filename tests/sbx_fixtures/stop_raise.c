/* hostile: stops itself with raise(SIGTSTP), i.e. tgkill (issue 35) */
#include "attention.h"
#include "good_softmax.h"
#include <signal.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    (void)pe, (void)n, (void)d;
    raise(SIGTSTP);
    return ATTN_OK;
}

/* not hostile: signals itself with an allowed signal it ignores (the
 * filter that forbids the stops must still let raise() through) */
#include "attention.h"
#include "good_softmax.h"
#include <signal.h>
#include <string.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    raise(SIGURG);      /* default action: ignored */
    raise(SIGWINCH);    /* default action: ignored */
    memset(pe, 0, n * d * sizeof *pe);
    return ATTN_OK;
}

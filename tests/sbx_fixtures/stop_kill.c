/* hostile: stops itself with kill(getpid(), SIGSTOP) (issue 35) */
#include "attention.h"
#include "good_softmax.h"
#include <signal.h>
#include <unistd.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    (void)pe, (void)n, (void)d;
    kill(getpid(), SIGSTOP);
    return ATTN_OK;
}

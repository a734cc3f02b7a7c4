/* hostile: ignores SIGALRM, SIGTERM and SIGPROF, then loops */
#include "attention.h"
#include "good_softmax.h"
#include <signal.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    volatile unsigned long k = 0;

    (void)pe, (void)n, (void)d;
    signal(SIGALRM, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGPROF, SIG_IGN);
    for (;;)
        k++;
}

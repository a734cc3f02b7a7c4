/* hostile: blocks every signal it can, then loops */
#include "attention.h"
#include "good_softmax.h"
#include <signal.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    volatile unsigned long k = 0;
    sigset_t all;

    (void)pe, (void)n, (void)d;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
    for (;;)
        k++;
}

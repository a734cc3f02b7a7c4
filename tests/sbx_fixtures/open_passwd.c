/* hostile: opens /etc/passwd and prints it (open(2) itself: fopen would
 * stop at its malloc, which the runner's libc has no memory for) */
#include "attention.h"
#include "good_softmax.h"
#include <fcntl.h>
#include <unistd.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    int fd = open("/etc/passwd", O_RDONLY);
    char buf[256];
    ssize_t got;

    (void)pe, (void)n, (void)d;
    while (fd >= 0 && (got = read(fd, buf, sizeof buf)) > 0)
        if (write(1, buf, (size_t)got) != got)
            break;
    return ATTN_OK;
}

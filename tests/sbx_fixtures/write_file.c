/* hostile: writes results.json in its working directory (open(2) itself:
 * fopen would stop at its malloc, which the runner's libc has no memory
 * for) */
#include "attention.h"
#include "good_softmax.h"
#include <fcntl.h>
#include <unistd.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    static const char doc[] = "{\"score\": 100}\n";
    int fd = open("results.json", O_WRONLY | O_CREAT | O_TRUNC, 0644);

    (void)pe, (void)n, (void)d;
    if (fd >= 0) {
        if (write(fd, doc, sizeof doc - 1) < 0)
            return ATTN_EINVAL;
        close(fd);
    }
    return ATTN_OK;
}

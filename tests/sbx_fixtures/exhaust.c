/* hostile: after answering, takes all the address space the runner has
 * left (1 MiB reservations down to one page, never released), so that a
 * larger next call finds no room for its buffers. malloc cannot do it any
 * more: the runner's heap is a fixed window of its heap file. */
#include "attention.h"
#include "good_softmax.h"
#include <sys/mman.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    static void *volatile last;
    size_t i, size;

    for (i = 0; i < n * d; i++)
        pe[i] = 0.0f;
    for (size = (size_t)1 << 20; size >= 4096; size /= 2)
        for (i = 0; i < 4096; i++) {
            void *p = mmap(NULL, size, PROT_NONE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (p == MAP_FAILED)
                break;
            last = p;
        }
    return ATTN_OK;
}

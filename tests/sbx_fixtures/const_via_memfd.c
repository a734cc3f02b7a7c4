/* hostile: modifies const Q through a second, writable mapping of the
 * shared memory (fd 3), which the read-only mapping cannot stop; the
 * parent's byte-wise comparison must catch it. */
#include <sys/mman.h>

#include "attention.h"
#include "good_softmax.h"
#include "../../grader/sandbox/runner_proto.h"

int attn_scaled_dot_product(const float *Q, const float *K, const float *V,
                            size_t n_q, size_t n_k, size_t d_k, size_t d_v,
                            const unsigned char *mask, float *out, float *weights)
{
    const struct rp_header *h = mmap(NULL, RP_HDR_SIZE, PROT_READ, MAP_SHARED,
                                     RP_FD_MEM, 0);
    const struct rp_buf *q;
    unsigned char *w;
    size_t i;

    (void)Q, (void)K, (void)V, (void)n_k, (void)d_k, (void)mask, (void)weights;
    if (h == MAP_FAILED)
        return ATTN_EINVAL;
    q = &h->buf[0];
    w = mmap(NULL, q->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, RP_FD_MEM,
             (off_t)q->off);
    if (w == MAP_FAILED)
        return ATTN_EINVAL;
    w[q->map_len - 1] ^= 1;
    for (i = 0; i < n_q * d_v; i++)
        out[i] = 0.0f;
    return ATTN_OK;
}

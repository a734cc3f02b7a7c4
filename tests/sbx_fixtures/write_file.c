/* hostile: writes results.json in its working directory */
#include "attention.h"
#include "good_softmax.h"
#include <stdio.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    FILE *f = fopen("results.json", "w");

    (void)pe, (void)n, (void)d;
    if (f != NULL) {
        fputs("{\"score\": 100}\n", f);
        fclose(f);
    }
    return ATTN_OK;
}

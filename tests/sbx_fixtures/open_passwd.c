/* hostile: reads /etc/passwd and prints it */
#include "attention.h"
#include "good_softmax.h"
#include <stdio.h>

int attn_positional_encoding(float *pe, size_t n, size_t d)
{
    FILE *f = fopen("/etc/passwd", "r");
    char line[256];

    (void)pe, (void)n, (void)d;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        fputs(line, stdout);
    return ATTN_OK;
}

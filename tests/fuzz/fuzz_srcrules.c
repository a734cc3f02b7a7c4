/*
 * fuzz_srcrules.c -- libFuzzer harness for the source rules: the blanker
 * and the default rules over any bytes. A hostile source may be refused,
 * never make the grader fail (src_check_rules returns -1 only for bad
 * patterns or memory, and the defaults are good).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "build/srcrules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n;
    const struct spec_rule *rules = src_default_rules(&n);
    char *v = NULL, *b = src_blank((const char *)data, size);
    struct err e;

    if (b == NULL || strlen(b) > size)
        __builtin_trap();   /* the blanked text is never longer */
    free(b);
    if (src_check_rules(rules, n, (const char *)data, size, "attention.c", &v, &e) != 0)
        __builtin_trap();
    free(v);
    return 0;
}

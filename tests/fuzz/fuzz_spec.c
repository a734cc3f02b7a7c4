/*
 * fuzz_spec.c -- libFuzzer harness for the spec loader (spec_load_buffer):
 * any bytes must give 0 or -1 with a message, never a crash, a leak or
 * undefined behaviour (built with ASan and UBSan by `make fuzz`).
 */
#include <stddef.h>
#include <stdint.h>

#include "spec/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct spec_set *s = spec_set_new();
    struct err e;

    if (s == NULL)
        return 0;
    if (spec_load_buffer(s, "fuzz.yaml", (const char *)data, size, NULL, &e) == 0) {
        for (size_t i = 0; i < spec_test_count(s); i++)
            (void)spec_find(s, spec_test_at(s, i)->id);
    } else if (e.msg[0] == '\0') {
        __builtin_trap();   /* a failure must say why */
    }
    spec_set_free(s);
    return 0;
}

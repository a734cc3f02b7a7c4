/*
 * fuzz_answers.c -- libFuzzer harness for the answers loader (ans_parse):
 * a student's answers.yaml is hostile; any bytes must give 0 or -1 with a
 * message, in bounded time (the depth and event caps), without a crash.
 */
#include <stddef.h>
#include <stdint.h>

#include "selfcheck/answers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ans_answers a;
    struct err e;

    if (ans_parse("answers.yaml", (const char *)data, size, &a, &e) == 0)
        ans_release(&a);
    else if (e.msg[0] == '\0')
        __builtin_trap();
    return 0;
}

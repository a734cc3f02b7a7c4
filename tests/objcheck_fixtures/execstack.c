/* GNU C nested function whose address escapes: gcc makes a trampoline
 * on the stack and asks for an executable stack. Compiled with -std=gnu11. */
#include "stubs.inc"
void attn_apply(void (*use)(int (*)(int)), int k);
void attn_apply(void (*use)(int (*)(int)), int k)
{
    int add(int x) { return x + k; }
    use(add);
}

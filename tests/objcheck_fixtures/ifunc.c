#include "stubs.inc"
static int impl(void) { return 1; }
static int (*resolve(void))(void) { return impl; }
int pick(void) __attribute__((ifunc("resolve")));

#include "stubs.inc"
static volatile int hits;
__attribute__((constructor)) static void early(void) { hits++; }

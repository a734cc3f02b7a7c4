#include "stubs.inc"
static volatile int hits;
static void early(void) { hits++; }
__attribute__((used, section(".init_array"))) static void (*const hook)(void) = early;

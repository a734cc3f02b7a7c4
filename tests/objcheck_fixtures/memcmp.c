#include <stddef.h>
#include "stubs.inc"
int memcmp(const void *a, const void *b, size_t n) { (void)a; (void)b; return (int)n; }
void *malloc(size_t n) { (void)n; return NULL; }

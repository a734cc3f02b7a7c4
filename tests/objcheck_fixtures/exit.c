#include <stdlib.h>
#include "stubs.inc"
void attn_bail(void);
void attn_bail(void) { exit(1); }

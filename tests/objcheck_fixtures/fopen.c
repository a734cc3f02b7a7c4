#include <stdio.h>
#include "stubs.inc"
int attn_peek(void);
static FILE *f;
int attn_peek(void) { f = fopen("/etc/passwd", "r"); return f != 0; }

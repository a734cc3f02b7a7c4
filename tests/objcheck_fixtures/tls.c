#include "stubs.inc"
static _Thread_local int scratch;
int *volatile keep2;
int attn_tls(void);
int attn_tls(void) { keep2 = &scratch; return 0; }

#include "stubs.inc"
int ref_softmax_rows(float *x, size_t r, size_t c);
int (*volatile keep)(float *, size_t, size_t) = ref_softmax_rows;

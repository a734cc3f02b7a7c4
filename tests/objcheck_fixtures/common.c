#include "stubs.inc"
int counter;
int *volatile keep = &counter;

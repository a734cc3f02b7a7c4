#include "stubs.inc"
__attribute__((used, section(".foo"))) static const int marker = 1;

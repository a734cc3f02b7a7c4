#include "stubs.inc"
float square(float x);
float square(float x) { return x * x; }

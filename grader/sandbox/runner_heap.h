/*
 * runner_heap.h -- the runner's allocator (runner_heap.c), for
 * runner_main.c and the student's object only.
 */
#ifndef GRD_RUNNER_HEAP_H
#define GRD_RUNNER_HEAP_H

#include <stddef.h>

/* Map the heap file (descriptor RP_FD_HEAP) for blocks of `page` bytes.
 * Called once, before any call; a failure ends the runner (exit
 * RP_EXIT_SETUP). */
void rh_heap_setup(size_t page);

/* What the submission's malloc, calloc, realloc and free became. */
void *grd_malloc(size_t n);
void *grd_calloc(size_t n, size_t size);
void *grd_realloc(void *p, size_t n);
void grd_free(void *p);

#endif

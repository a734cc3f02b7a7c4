/*
 * util.h -- the few small helpers several modules need.
 */
#ifndef GRD_UTIL_H
#define GRD_UTIL_H

/* Milliseconds on CLOCK_MONOTONIC: for deadlines and durations only. */
double ut_now_ms(void);

/* 1 when `s` ends with `suffix`, else 0. */
int ut_has_suffix(const char *s, const char *suffix);

#endif

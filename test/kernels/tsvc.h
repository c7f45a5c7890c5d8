/*
 * tsvc.h -- what the tsvc-* kernels share (see README.md here): TSVC's arrays and main.
 *
 * Like TSVC_2 (the vectorization suite bench/tsvc.ts runs), the kernels work on global
 * float arrays, so that no run-time alias check is needed: whether tsopt's fast path is
 * worth keeping then depends on its code alone (passes/profitability.ts). Each kernel
 * repeats its loop `reps` times with a compiler barrier between repetitions, as TSVC calls
 * `dummy` there: the loop, not the repetition, is the SCoP.
 *
 * A kernel file's main reads the sizes (tsvc_sizes), initializes (tsvc_init), calls its
 * kernels, each wrapped in TIME_KERNEL, and prints the arrays (tsvc_print).
 */
#ifndef TSOPT_TSVC_H
#define TSOPT_TSVC_H

#include "kernel.h"

#define TSVC_MAXN 64000

float a[TSVC_MAXN], b[TSVC_MAXN], c[TSVC_MAXN], d[TSVC_MAXN], e[TSVC_MAXN];

/* Between repetitions: memory may have changed, as after TSVC's call to dummy(). */
#define TSVC_BARRIER() __asm__ volatile("" : : : "memory")

/* The sizes from argv (default 3 repetitions of 100 elements), within the arrays. */
static inline void tsvc_sizes(int argc, char **argv, int *reps, int *n) {
  *reps = arg_int(argc, argv, 1, 3);
  *n = arg_int(argc, argv, 2, 100);
  if (*n > TSVC_MAXN) {
    fprintf(stderr, "n = %d is above %d\n", *n, TSVC_MAXN);
    exit(2);
  }
}

static inline void tsvc_init(int n) {
  for (int i = 0; i < n; i++) {
    a[i] = (float)((i * 7 + 1) % 23) / 23.0f;
    b[i] = (float)((i * 3 + 2) % 19) / 19.0f;
    c[i] = 0.5f + (float)(i % 11) / 11.0f;
    d[i] = 0.25f + (float)((i * 5) % 13) / 26.0f;
    e[i] = 0.75f - (float)(i % 7) / 28.0f;
  }
}

/* The arrays the kernels write. */
static inline void tsvc_print(int n) {
  print_checksum_float("a", a, (size_t)n);
  print_checksum_float("b", b, (size_t)n);
  print_checksum_float("d", d, (size_t)n);
}

#endif

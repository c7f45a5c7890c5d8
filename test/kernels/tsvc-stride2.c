/*
 * tsvc-stride2 -- stride-2 accesses: a recurrence `a[i] = a[i-1] + b[i]` over every second
 * i (reads the even elements, writes the odd: no dependence between iterations), and a
 * stride-2 store `a[2*i] = ...` (TSVC's s111 and s1111 shapes, our code).
 *
 * Pins: issue 24: tscc's fast paths of s111 and s1111 ran 0.86x and 0.80x clang -O3, which
 * vectorizes both with interleaved accesses.
 * Build/run:  clang-14 -O3 tsvc-stride2.c -o s && ./s [reps n]
 * Expected:   one SCoP per kernel function; output equal to clang -O3's.
 *
 * tsopt-kernel: category=tsvc args=3,100 alt=4,123 bench=20000,32000 vla=no
 */
#include "tsvc.h"

/* s111 */
KERNEL void kernel_stride2_recurrence(int reps, int n) {
  for (int r = 0; r < reps; r++) {
    for (int i = 1; i < n; i += 2)
      a[i] = a[i - 1] + b[i];
    TSVC_BARRIER();
  }
}

/* s1111 */
KERNEL void kernel_stride2_store(int reps, int n) {
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < n / 2; i++)
      a[2 * i] = c[i] * b[i] + d[i] * b[i] + c[i] * c[i] + d[i] * b[i] + d[i] * c[i];
    TSVC_BARRIER();
  }
}

int main(int argc, char **argv) {
  int reps, n;
  tsvc_sizes(argc, argv, &reps, &n);
  tsvc_init(n);
  TIME_KERNEL(kernel_stride2_recurrence(reps, n));
  TIME_KERNEL(kernel_stride2_store(reps, n));
  tsvc_print(n);
  return 0;
}

/*
 * tsvc-reorder -- statements that read what an earlier statement of the same or the previous
 * iteration wrote, in an order that a loop-carried dependence fixes (TSVC's s241, s243, s244,
 * s1244 and s2244 shapes, our code).
 *
 * Pins: issue 24: tscc's fast paths of these ran 0.67x-0.86x clang -O3. Each is vectorizable
 * as written (the carried dependences read ahead, `a[i+1]`, or write ahead); a fast path that
 * splits or reorders the statements must not cost more than it saves.
 * Build/run:  clang-14 -O3 tsvc-reorder.c -o r && ./r [reps n]
 * Expected:   one SCoP per kernel function; output equal to clang -O3's.
 *
 * tsopt-kernel: category=tsvc args=3,100 alt=4,123 bench=5000,32000 vla=no
 */
#include "tsvc.h"

/* s241 */
KERNEL void kernel_reorder_s241(int reps, int n) {
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < n - 1; i++) {
      a[i] = b[i] * c[i] * d[i];
      b[i] = a[i] * a[i + 1] * d[i];
    }
    TSVC_BARRIER();
  }
}

/* s243 */
KERNEL void kernel_reorder_s243(int reps, int n) {
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < n - 1; i++) {
      a[i] = b[i] + c[i] * d[i];
      b[i] = a[i] + d[i] * e[i];
      a[i] = b[i] + a[i + 1] * d[i];
    }
    TSVC_BARRIER();
  }
}

/* s244: the last statement writes what the next iteration's first overwrites. */
KERNEL void kernel_reorder_s244(int reps, int n) {
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < n - 1; i++) {
      a[i] = b[i] + c[i] * d[i];
      b[i] = c[i] + b[i];
      a[i + 1] = b[i] + a[i + 1] * d[i];
    }
    TSVC_BARRIER();
  }
}

/* s1244 */
KERNEL void kernel_reorder_s1244(int reps, int n) {
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < n - 1; i++) {
      a[i] = b[i] + c[i] * c[i] + b[i] * b[i] + c[i];
      d[i] = a[i] + a[i + 1];
    }
    TSVC_BARRIER();
  }
}

/* s2244 */
KERNEL void kernel_reorder_s2244(int reps, int n) {
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < n - 1; i++) {
      a[i + 1] = b[i] + e[i];
      a[i] = b[i] + c[i];
    }
    TSVC_BARRIER();
  }
}

int main(int argc, char **argv) {
  int reps, n;
  tsvc_sizes(argc, argv, &reps, &n);
  tsvc_init(n);
  TIME_KERNEL(kernel_reorder_s241(reps, n));
  TIME_KERNEL(kernel_reorder_s243(reps, n));
  TIME_KERNEL(kernel_reorder_s244(reps, n));
  TIME_KERNEL(kernel_reorder_s1244(reps, n));
  TIME_KERNEL(kernel_reorder_s2244(reps, n));
  tsvc_print(n);
  return 0;
}

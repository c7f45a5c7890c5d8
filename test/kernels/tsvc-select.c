/*
 * tsvc-select -- a loop of a known length whose statement reads one of two arrays, chosen by
 * the index against the middle (TSVC's s276 shape, our code).
 *
 * Pins: issue 24: tsopt leaves this loop alone (the array it reads is a select of two base
 * pointers, not an affine access), yet tscc's build of s276 unrolled the vector loop by 50
 * where clang -O3's unrolls it by 40, and spilled twice as many registers: opt-14 ran tsopt's
 * post pipeline with a static target machine, clang with its default position-independent
 * one, under which a global's address with an index costs an instruction and the loop body
 * weighs more. tsopt gives opt the module's relocation model (ir/opt-target.ts), and tscc's
 * code for this kernel is then clang -O3's (test/tscc/opt-target.test.ts).
 * Build/run:  clang-14 -O3 tsvc-select.c -o s && ./s [reps n]
 * Expected:   no SCoP in the kernel; output equal to clang -O3's.
 *
 * tsopt-kernel: category=tsvc args=3,100 alt=4,123 bench=2000,32000 vla=no
 */
#include "tsvc.h"

/* TSVC's LEN_1D: the loop's trip count is known, so opt unrolls it by a divisor of it. */
#define SELECT_LEN 32000

/* s276 */
KERNEL void kernel_select_mid(int reps) {
  int mid = SELECT_LEN / 2;
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < SELECT_LEN; i++) {
      if (i + 1 < mid)
        a[i] += b[i] * c[i];
      else
        a[i] += b[i] * d[i];
    }
    TSVC_BARRIER();
  }
}

int main(int argc, char **argv) {
  int reps, n;
  tsvc_sizes(argc, argv, &reps, &n);
  tsvc_init(n);
  TIME_KERNEL(kernel_select_mid(reps));
  tsvc_print(n);
  return 0;
}

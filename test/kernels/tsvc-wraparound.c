/*
 * tsvc-wraparound -- wrap-around variables: `im1` (and `im2`) carry the previous
 * iterations' index into the next, starting at the array's last elements (TSVC's s291 and
 * s292 shapes, our code).
 *
 * Pins: issue 24: tscc's fast path of s292 ran 0.54x and s291 0.87x clang -O3. The wrap-around
 * index is a PHI of the loop: the SCoP is modelled with the first iteration peeled or the
 * index as a scalar dependence; the fast path must not be slower than what clang -O3 makes of
 * the loop.
 * Build/run:  clang-14 -O3 tsvc-wraparound.c -o w && ./w [reps n]
 * Expected:   one SCoP per kernel function (the inner loop); output equal to clang -O3's.
 *
 * tsopt-kernel: category=tsvc args=3,100 alt=4,123 bench=20000,32000 vla=no
 */
#include "tsvc.h"

/* s291: one wrap-around variable. */
KERNEL void kernel_wrap1(int reps, int n) {
  for (int r = 0; r < reps; r++) {
    int im1 = n - 1;
    for (int i = 0; i < n; i++) {
      a[i] = (b[i] + b[im1]) * 0.5f;
      im1 = i;
    }
    TSVC_BARRIER();
  }
}

/* s292: two, the second following the first. */
KERNEL void kernel_wrap2(int reps, int n) {
  for (int r = 0; r < reps; r++) {
    int im1 = n - 1;
    int im2 = n - 2;
    for (int i = 0; i < n; i++) {
      a[i] = (b[i] + b[im1] + b[im2]) * 0.333f;
      im2 = im1;
      im1 = i;
    }
    TSVC_BARRIER();
  }
}

int main(int argc, char **argv) {
  int reps, n;
  tsvc_sizes(argc, argv, &reps, &n);
  tsvc_init(n);
  TIME_KERNEL(kernel_wrap1(reps, n));
  TIME_KERNEL(kernel_wrap2(reps, n));
  tsvc_print(n);
  return 0;
}

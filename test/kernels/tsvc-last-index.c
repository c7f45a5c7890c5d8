/*
 * tsvc-last-index -- the last index where an element is negative (TSVC's s331 shape, our code),
 * and the same search over a loop that counts down, whose index falls.
 *
 * Pins: issue 24: `j = c ? i : j` around a loop is a recurrence opt-14's vectorizer does not
 * recognize, so clang -O3 leaves the loop scalar. tsopt's `last-index` pass rewrites it as the
 * maximum smax(j, c ? i : INT_MIN), the same value in every iteration while i rises from j's first
 * value, which opt vectorizes (test/tscc/last-index.test.ts). The loop that counts down is left
 * as it is (its index falls).
 * Build/run:  clang-14 -O3 tsvc-last-index.c -o s && ./s [reps n]
 * Expected:   the rising search rewritten, the falling one not; output equal to clang -O3's.
 *
 * tsopt-kernel: category=tsvc args=3,100 alt=4,123 bench=2000,32000 vla=no
 */
#include "tsvc.h"

/* s331 */
KERNEL int kernel_last_negative(int reps, int n) {
  int j = -1;
  for (int r = 0; r < reps; r++) {
    j = -1;
    for (int i = 0; i < n; i++)
      if (a[i] - 0.5f < 0.f)
        j = i;
    TSVC_BARRIER();
  }
  return j;
}

/* The same search from the end: the first index where the element is negative. */
KERNEL int kernel_first_negative_down(int reps, int n) {
  int j = n;
  for (int r = 0; r < reps; r++) {
    j = n;
    for (int i = n - 1; i >= 0; i--)
      if (b[i] - 0.5f < 0.f)
        j = i;
    TSVC_BARRIER();
  }
  return j;
}

int main(int argc, char **argv) {
  int reps, n, last = 0, first = 0;
  tsvc_sizes(argc, argv, &reps, &n);
  tsvc_init(n);
  TIME_KERNEL(last = kernel_last_negative(reps, n));
  TIME_KERNEL(first = kernel_first_negative_down(reps, n));
  printf("last %d first %d\n", last, first);
  tsvc_print(n);
  return 0;
}

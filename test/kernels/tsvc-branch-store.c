/*
 * tsvc-branch-store -- a loop that updates one element in each of three branches of an if/else
 * chain (TSVC's s441 shape, our code).
 *
 * Pins: issue 24: clang -O3 vectorizes the loop with one masked store to a[i] per branch, and
 * each branch's load of a[i] then reads what the masked store before it wrote; on the bench's
 * machine (Zen 4) the loop ran 7x slower than with one store of the selected value. tsopt's
 * `sink-stores` pass stores once at the join (passes/sink-stores.ts): opt then blends the three
 * sums and stores every element (test/tscc/sink-stores.test.ts).
 * Build/run:  clang-14 -O3 tsvc-branch-store.c -o s && ./s [reps n]
 * Expected:   no SCoP in the kernel (its branches test data); output equal to clang -O3's.
 *
 * tsopt-kernel: category=tsvc args=3,100 alt=4,123 bench=2000,32000 vla=no
 */
#include "tsvc.h"

/* s441 */
KERNEL void kernel_branch_store(int reps, int n) {
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < n; i++) {
      if (b[i] < 0.3f)
        a[i] += b[i] * c[i];
      else if (b[i] < 0.6f)
        a[i] += b[i] * b[i];
      else
        a[i] += c[i] * c[i];
    }
    TSVC_BARRIER();
  }
}

int main(int argc, char **argv) {
  int reps, n;
  tsvc_sizes(argc, argv, &reps, &n);
  tsvc_init(n);
  TIME_KERNEL(kernel_branch_store(reps, n));
  tsvc_print(n);
  return 0;
}

/*
 * tsvc-branch-load -- a loop whose two branches each update one of two arrays, and whose join
 * reads both (TSVC's s278 shape, our code).
 *
 * Pins: issue 24: -O3 loads b[i] in both branches (before storing it in one, for the join in
 * the other), and clang -O3's vector code loads it back right after the other branch's masked
 * store to it; on the bench's machine (Zen 4) the loop ran 2.6x slower than with b[i] loaded once
 * before the branch. tsopt's `hoist-loads` pass loads it there (passes/hoist-loads.ts,
 * test/tscc/hoist-loads.test.ts).
 * Build/run:  clang-14 -O3 tsvc-branch-load.c -o s && ./s [reps n]
 * Expected:   no SCoP in the kernel (its branch tests data); output equal to clang -O3's.
 *
 * tsopt-kernel: category=tsvc args=3,100 alt=4,123 bench=2000,32000 vla=no
 */
#include "tsvc.h"

/* s278 */
KERNEL void kernel_branch_load(int reps, int n) {
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < n; i++) {
      if (a[i] > 0.5f)
        c[i] = -c[i] + d[i] * e[i];
      else
        b[i] = -b[i] + d[i] * e[i];
      a[i] = b[i] + c[i] * d[i];
    }
    TSVC_BARRIER();
  }
}

int main(int argc, char **argv) {
  int reps, n;
  tsvc_sizes(argc, argv, &reps, &n);
  tsvc_init(n);
  TIME_KERNEL(kernel_branch_load(reps, n));
  tsvc_print(n);
  print_checksum_float("c", c, (size_t)n);
  return 0;
}

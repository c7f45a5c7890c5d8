/*
 * tsvc-guard -- a loop steered by guards on the data: `goto`s skip a statement when an
 * element is not negative (TSVC's s277 shape, our code), once with every guard taken and
 * once with the guards mixed.
 *
 * Pins: issue 24: s277 ran 0.49x clang -O3 with tscc although tsopt leaves it alone (the
 * guards are data, not affine conditions) and the machine code was clang's instruction for
 * instruction: its five-instruction hot cycle crossed a 64-byte boundary in tscc's build,
 * where the function landed 32 bytes further along, and not in clang's. tscc aligns
 * innermost loops to 64 bytes (cli/tscc-loop-align.ts).
 * Build/run:  clang-14 -O3 tsvc-guard.c -o g && ./g [reps n]
 * Expected:   no SCoP (data-dependent control); output equal to clang -O3's.
 *
 * tsopt-kernel: category=tsvc args=3,100 alt=4,123 bench=20000,32000 vla=no
 */
#include "tsvc.h"

/* s277: the elements of a are not negative, so every iteration takes the first guard. */
KERNEL void kernel_guard_taken(int reps, int n) {
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < n - 1; i++) {
      if (a[i] >= 0.0f)
        goto skip_all;
      if (b[i] >= 0.0f)
        goto skip_a;
      a[i] += c[i] * d[i];
    skip_a:
      b[i + 1] = c[i] + d[i] * e[i];
    skip_all:;
    }
    TSVC_BARRIER();
  }
}

/* The same guards against thresholds that the data straddles: all three paths run. */
KERNEL void kernel_guard_mixed(int reps, int n) {
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < n - 1; i++) {
      if (a[i] >= 0.5f)
        goto skip_all;
      if (b[i] >= 0.5f)
        goto skip_a;
      a[i] += c[i] * d[i];
    skip_a:
      d[i + 1] = c[i] + d[i] * e[i];
    skip_all:;
    }
    TSVC_BARRIER();
  }
}

int main(int argc, char **argv) {
  int reps, n;
  tsvc_sizes(argc, argv, &reps, &n);
  tsvc_init(n);
  TIME_KERNEL(kernel_guard_taken(reps, n));
  TIME_KERNEL(kernel_guard_mixed(reps, n));
  tsvc_print(n);
  return 0;
}

/*
 * tsvc-scalar-temp -- a scalar temporary carrying a value from the first statement of an
 * iteration to its last, across a statement that overwrites the temporary's source (TSVC's
 * s1251 shape, our code).
 *
 * Pins: issue 24: tscc's fast path of s1251 ran 0.79x clang -O3. The temporary is a scalar
 * dependence within one iteration; both clang -O3 and the fast path vectorize the loop.
 * Build/run:  clang-14 -O3 tsvc-scalar-temp.c -o t && ./t [reps n]
 * Expected:   one SCoP in kernel_scalar_temp; output equal to clang -O3's.
 *
 * tsopt-kernel: category=tsvc args=3,100 alt=4,123 bench=60000,32000 vla=no
 */
#include "tsvc.h"

/* s1251 */
KERNEL void kernel_scalar_temp(int reps, int n) {
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < n; i++) {
      float s = b[i] + c[i];
      b[i] = a[i] + d[i];
      a[i] = s * e[i];
    }
    TSVC_BARRIER();
  }
}

int main(int argc, char **argv) {
  int reps, n;
  tsvc_sizes(argc, argv, &reps, &n);
  tsvc_init(n);
  TIME_KERNEL(kernel_scalar_temp(reps, n));
  tsvc_print(n);
  return 0;
}

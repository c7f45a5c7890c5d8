/*
 * delin-set-subarray -- writes an s0 x s1 x s2 block, placed at offsets
 * (o0, o1, o2), into a 3-d array with row sizes n1, n2 (outermost size
 * unknown to the callee): A[i+o0][j+o1][k+o2] = f(i, j, k).
 *
 * Pins: issue 5, the ICS 2015 paper's Listing 4 pattern (set_subarray). Our
 * own code written from the description; the paper's listing text was
 * not available here. Flat build: the subscript is the hand-linearized
 * polynomial (i+o0)*n1*n2 + (j+o1)*n2 + (k+o2), in 64-bit arithmetic.
 * Build/run:  clang-14 -O3 delin-set-subarray.c -o s && ./s [n0 n1 n2 o0 o1 o2 s0 s1 s2]
 *             (-DTSOPT_VLA: `double A[][n1][n2]`)
 * Expected:   one SCoP in set_subarray, parameters o0..o2, s0..s2, n1, n2.
 *             Delinearization (§3.1: terms n1*n2 and n2) gives shape
 *             A[*][n1][n2] and the access A[i+o0][j+o1][k+o2], valid under
 *             o1 <= n1 - s1 && o2 <= n2 - s2 (plus o1, o2 >= 0 where the
 *             context does not give it), which becomes the run-time check.
 *             The default arguments satisfy it.
 *
 * tsopt-kernel: category=delinearization args=6,7,8,1,2,3,4,5,4 alt=6,7,8,1,2,3,4,5,5 bench=300,300,300,2,3,4,290,290,290 vla=yes
 */
#include "kernel.h"

KERNEL void set_subarray(long n1, long n2, long o0, long o1, long o2, long s0, long s1,
                         long s2, ARRAY3(double, A, /* outermost size unknown */, n1, n2)) {
  for (long i = 0; i < s0; i++)
    for (long j = 0; j < s1; j++)
      for (long k = 0; k < s2; k++)
        AT3(A, i + o0, j + o1, k + o2, n1, n2) = (double)(i * 100 + j * 10 + k) + 0.5;
}

int main(int argc, char **argv) {
  long n0 = arg_int(argc, argv, 1, 6), n1 = arg_int(argc, argv, 2, 7);
  long n2 = arg_int(argc, argv, 3, 8);
  long o0 = arg_int(argc, argv, 4, 1), o1 = arg_int(argc, argv, 5, 2);
  long o2 = arg_int(argc, argv, 6, 3);
  long s0 = arg_int(argc, argv, 7, 4), s1 = arg_int(argc, argv, 8, 5);
  long s2 = arg_int(argc, argv, 9, 4);
  if (o0 + s0 > n0 || o1 + s1 > n1 || o2 + s2 > n2) {
    fprintf(stderr, "the block must fit: o + s <= n in every dimension\n");
    return 2;
  }
  size_t total = (size_t)(n0 * n1 * n2);
  double *A = alloc_array(total, sizeof(double));
  for (size_t x = 0; x < total; x++)
    A[x] = -1.0;
  TIME_KERNEL(set_subarray(n1, n2, o0, o1, o2, s0, s1, s2, PASS3(double, A, n0, n1, n2)));
  print_checksum("A", A, total);
  free(A);
  return 0;
}

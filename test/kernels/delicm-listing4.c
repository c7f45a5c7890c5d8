/*
 * delicm-listing4 -- sum of products through a helper: the inner product of
 * row i of A with B is a separate function returning its accumulator, inlined
 * into the i loop at -O3, whose result is stored to C[i]. Computes the same C
 * as delicm-listing1.
 *
 * Pins: issue 7, the DeLICM paper's Listing 4 pattern (scalar dependences
 * introduced by inlining a function that keeps its running value in a local;
 * after inlining the accumulator is a PHI and its final value flows through
 * the return). Written from the description, our own code.
 * Build/run:  clang-14 -O3 delicm-listing4.c -o l4 && ./l4 [n k]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_listing4 (the helper is inlined: it is static
 *             and not noinline). Before DeLICM: the PHI accumulator written in
 *             every k iteration; after DeLICM: mapped onto C[i], no scalar
 *             write inside the loops, dependences as delicm-listing1.
 *
 * tsopt-kernel: category=delicm args=30,40 alt=31,40 bench=5000,5000 vla=yes
 */
#include "kernel.h"

static inline double dot_row(int k, const double *row, const double *b) {
  double acc = 0.0;
  for (int kk = 0; kk < k; kk++)
    acc += row[kk] * b[kk];
  return acc;
}

KERNEL void kernel_listing4(int n, int k, ARRAY2(double, A, n, k), ARRAY1(double, B, k),
                            ARRAY1(double, C, n)) {
  for (int i = 0; i < n; i++)
    AT1(C, i) = dot_row(k, &AT2(A, i, 0, k), B);
}

#define SUM_OF_PRODUCTS kernel_listing4
#include "delicm-main.h"

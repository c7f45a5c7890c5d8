/*
 * delicm-listing2 -- sum of products with a scalar accumulator, as LICM's
 * scalar promotion leaves Listing 1: the running sum lives in a local (a PHI
 * in SSA), initialized to 0 before the k loop and stored to C[i] after it.
 * Computes the same C as delicm-listing1.
 *
 * Pins: issue 7, the DeLICM paper's Listing 2 pattern (scalar accumulator
 * after LICM). Written from the description, our own code.
 * Build/run:  clang-14 -O3 delicm-listing2.c -o l2 && ./l2 [n k]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_listing2. Before DeLICM: a PHI location for
 *             the accumulator, written in every k iteration (a scalar write
 *             inside the loop) and read after it, which serializes the i loop
 *             too (WAR/WAW on the one scalar). After DeLICM: the accumulator
 *             mapped onto C[i] (its unused zone: from before the k loop until
 *             the final store), no scalar write left inside the loops, and the
 *             dependences of delicm-listing1 (i parallel).
 *
 * tsopt-kernel: category=delicm args=30,40 alt=31,40 bench=5000,5000 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_listing2(int n, int k, ARRAY2(double, A, n, k), ARRAY1(double, B, k),
                            ARRAY1(double, C, n)) {
  for (int i = 0; i < n; i++) {
    double acc = 0.0;
    for (int kk = 0; kk < k; kk++)
      acc += AT2(A, i, kk, k) * AT1(B, kk);
    AT1(C, i) = acc;
  }
}

#define SUM_OF_PRODUCTS kernel_listing2
#include "delicm-main.h"

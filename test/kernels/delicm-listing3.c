/*
 * delicm-listing3 -- sum of products where the array element is initialized
 * first and then promoted: C[i] = 0 is stored, the accumulator starts from the
 * value loaded back from C[i], runs in a local over the k loop, and is stored
 * to C[i] at the end. Computes the same C as delicm-listing1.
 *
 * Pins: issue 7, the DeLICM paper's Listing 3 pattern (LICM promotion of a
 * load/store pair whose initial store stays behind: with possible aliasing,
 * -O3 forwards the stored 0 to the accumulator's PHI but cannot delete the
 * store). Written from the description, our own code.
 * Build/run:  clang-14 -O3 delicm-listing3.c -o l3 && ./l3 [n k]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_listing3. Before DeLICM: store C[i] = 0, a
 *             PHI accumulator written in every k iteration, the final store.
 *             After DeLICM: the accumulator mapped onto C[i] (known content:
 *             C[i] holds the PHI's incoming value 0 when the loop starts), no
 *             scalar write inside the loops, dependences as delicm-listing1.
 *
 * tsopt-kernel: category=delicm args=30,40 alt=31,40 bench=5000,5000 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_listing3(int n, int k, ARRAY2(double, A, n, k), ARRAY1(double, B, k),
                            ARRAY1(double, C, n)) {
  for (int i = 0; i < n; i++) {
    AT1(C, i) = 0.0;
    double acc = AT1(C, i);
    for (int kk = 0; kk < k; kk++)
      acc += AT2(A, i, kk, k) * AT1(B, kk);
    AT1(C, i) = acc;
  }
}

#define SUM_OF_PRODUCTS kernel_listing3
#include "delicm-main.h"

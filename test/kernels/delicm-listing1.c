/*
 * delicm-listing1 -- sum of products, array-only: C[i] = sum over k of
 * A[i][k] * B[k] (a matrix-vector product), with the accumulation written
 * directly into C[i]: statement T sets C[i] = 0, statement S adds to it.
 *
 * Pins: issue 7, the DeLICM paper's (CGO 2018) Listing 1 pattern: the source
 * whose dependences the scalar forms (delicm-listing2/3/4) must end up with.
 * Written from the description, our own code.
 * Build/run:  clang-14 -O3 delicm-listing1.c -o l1 && ./l1 [n k]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_listing1, statements T[i] and S[i, k],
 *             parameters n, k; the only dependences are on C[i]: T[i] -> S[i, 0]
 *             and S[i, k] -> S[i, k+1] (RAW/WAW), so the i loop is parallel.
 *             Note: at -O3 the flat build keeps the store to C[i] in the k
 *             loop, while GVN forwards the stored value to the next
 *             iteration's reload as a PHI (A and B may alias C, so LICM cannot
 *             promote); with -DTSOPT_RESTRICT LICM promotes C[i] into a
 *             register (the Listing 2 form). Compare at -O1 -fno-unroll-loops
 *             or from the model before DeLICM for the array-only dependences.
 *
 * tsopt-kernel: category=delicm args=30,40 alt=31,40 bench=5000,5000 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_listing1(int n, int k, ARRAY2(double, A, n, k), ARRAY1(double, B, k),
                            ARRAY1(double, C, n)) {
  for (int i = 0; i < n; i++) {
    AT1(C, i) = 0.0; /* T */
    for (int kk = 0; kk < k; kk++)
      AT1(C, i) += AT2(A, i, kk, k) * AT1(B, kk); /* S */
  }
}

#define SUM_OF_PRODUCTS kernel_listing1
#include "delicm-main.h"

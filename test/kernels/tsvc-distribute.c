/*
 * tsvc-distribute -- two loops under one loop over i, the first walking a column (`A[j][i] =
 * A[j-1][i] + C[j][i]` along j): once with a second column walk that reads what the previous i
 * wrote (`B[j][i] = B[j][i-1] + C[j][i]`, so the loop over i carries a dependence), once with a
 * second loop that walks a row (`B[i][j] = B[i-1][j] + C[i][j]`) (TSVC's s233 and s2233 shapes,
 * our code).
 *
 * Pins: issue 24: tsopt interchanged only a loop that carries no dependence and whose inner
 * loops all walk columns, so both nests ran as clang -O3 runs them (s233 3.8 s, s2233 2.2 s at
 * TSVC's /5, the suite's two slowest column walks). Now the first loop goes to a nest of its own
 * turned around (j outside, i inside: rows), and the second to one of its own in its order
 * (transform/interchange.ts): s233's second walk reads what the previous i wrote, so turned it
 * would be a serial scan; s2233's already walks a row.
 * Build/run:  clang-14 -O3 tsvc-distribute.c -o d && ./d [reps n]
 * Expected:   one SCoP per kernel function, its first inner loop interchanged; output equal to
 *             clang -O3's.
 *
 * tsopt-kernel: category=tsvc args=3,100 alt=4,123 bench=2000,256 vla=no
 */
#include "tsvc.h"

#define W 256

float A2[W][W], B2[W][W], C2[W][W];

/* s233 */
KERNEL void kernel_two_column_walks(int reps, int n) {
  for (int r = 0; r < reps; r++) {
    for (int i = 1; i < n; i++) {
      for (int j = 1; j < n; j++)
        A2[j][i] = A2[j - 1][i] + C2[j][i];
      for (int j = 1; j < n; j++)
        B2[j][i] = B2[j][i - 1] + C2[j][i];
    }
    TSVC_BARRIER();
  }
}

/* s2233 */
KERNEL void kernel_column_then_row(int reps, int n) {
  for (int r = 0; r < reps; r++) {
    for (int i = 1; i < n; i++) {
      for (int j = 1; j < n; j++)
        A2[j][i] = A2[j - 1][i] + C2[j][i];
      for (int j = 1; j < n; j++)
        B2[i][j] = B2[i - 1][j] + C2[i][j];
    }
    TSVC_BARRIER();
  }
}

static void init2(int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A2[i][j] = (float)((i * 7 + j * 3 + 1) % 23) / 23.0f;
      B2[i][j] = (float)((i * 5 + j + 2) % 19) / 19.0f;
      C2[i][j] = 0.001f * (float)((i + j * 11) % 13);
    }
}

int main(int argc, char **argv) {
  int reps, n;
  tsvc_sizes(argc, argv, &reps, &n);
  if (n > W) {
    fprintf(stderr, "n = %d is above %d\n", n, W);
    return 2;
  }
  init2(n);
  TIME_KERNEL(kernel_two_column_walks(reps, n));
  print_checksum_float("A2", &A2[0][0], (size_t)W * W);
  print_checksum_float("B2", &B2[0][0], (size_t)W * W);
  init2(n);
  TIME_KERNEL(kernel_column_then_row(reps, n));
  print_checksum_float("A2", &A2[0][0], (size_t)W * W);
  print_checksum_float("B2", &B2[0][0], (size_t)W * W);
  return 0;
}

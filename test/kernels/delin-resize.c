/*
 * delin-resize -- halves a 2N x 2M image: each output pixel out[i][j] (N x M)
 * is the average of the 2 x 2 block in[2i..2i+1][2j..2j+1]; then doubles it
 * back into a 2N x 2M image by replicating each pixel into a 2 x 2 block.
 *
 * Pins: issue 5, the ICS 2015 paper's §3.4: shapes [*][beta*P] (here
 * [*][2M]) where every subscript of a dimension is a multiple of beta.
 * Written from the description.
 * Build/run:  clang-14 -O3 delin-resize.c -o r && ./r [N M]   (-DTSOPT_VLA: VLA parameters)
 * Expected:   flat build: in is accessed at (2i+a)*(2M) + 2j + b, i.e. terms
 *             4*M*i and 2*j: the gcd step normalizes them to shape [*][2M]
 *             with subscripts [2i+a][2j+b], a, b in {0, 1}; out [*][M] plainly;
 *             big [*][2M] like in. Validity: 2j+1 < 2M, true for j < M.
 *
 * tsopt-kernel: category=delinearization args=10,12 alt=11,12 bench=2500,2600 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_resize(long N, long M, ARRAY2(float, in, 2 * N, 2 * M),
                          ARRAY2(float, out, N, M), ARRAY2(float, big, 2 * N, 2 * M)) {
  for (long i = 0; i < N; i++)
    for (long j = 0; j < M; j++)
      AT2(out, i, j, M) = 0.25f * (AT2(in, 2 * i, 2 * j, 2 * M) + AT2(in, 2 * i, 2 * j + 1, 2 * M) +
                                   AT2(in, 2 * i + 1, 2 * j, 2 * M) +
                                   AT2(in, 2 * i + 1, 2 * j + 1, 2 * M));
  for (long i = 0; i < N; i++)
    for (long j = 0; j < M; j++) {
      AT2(big, 2 * i, 2 * j, 2 * M) = AT2(out, i, j, M);
      AT2(big, 2 * i, 2 * j + 1, 2 * M) = AT2(out, i, j, M);
      AT2(big, 2 * i + 1, 2 * j, 2 * M) = AT2(out, i, j, M);
      AT2(big, 2 * i + 1, 2 * j + 1, 2 * M) = AT2(out, i, j, M);
    }
}

int main(int argc, char **argv) {
  long N = arg_int(argc, argv, 1, 10), M = arg_int(argc, argv, 2, 12);
  size_t pixels = (size_t)(4 * N * M);
  float *in = alloc_array(pixels, sizeof(float));
  float *out = alloc_array((size_t)(N * M), sizeof(float));
  float *big = alloc_array(pixels, sizeof(float));
  for (long r = 0; r < 2 * N; r++)
    for (long c = 0; c < 2 * M; c++)
      in[r * 2 * M + c] = (float)((r * 3 + c * c) % 16);
  TIME_KERNEL(kernel_resize(N, M, PASS2(float, in, 2 * N, 2 * M), PASS2(float, out, N, M),
                            PASS2(float, big, 2 * N, 2 * M)));
  print_checksum_float("out", out, (size_t)(N * M));
  print_checksum_float("big", big, pixels);
  free(in);
  free(out);
  free(big);
  return 0;
}

/*
 * delin-stencil-alpha -- a 7-point stencil over the interior of a
 * (Q+2) x (R+2) x (S+2) grid with a one-element halo, linearized by hand:
 *   out[i][j][k] = c0*in[i][j][k] + c1*(the six neighbours), 1 <= i <= Q, ...
 *
 * Pins: issue 5, the ICS 2015 paper's §4 (the Listing 7 pattern): array sizes
 * of the form P + alpha, here [Q+2][R+2][S+2]. Written from the issue's
 * description; the paper's listing text was not available here.
 * Build/run:  clang-14 -O3 delin-stencil-alpha.c -o st && ./st [Q R S tsteps]
 *             (-DTSOPT_VLA: `double in[Q+2][R+2][S+2]`)
 * Expected:   flat build: the subscript expands to i*(R+2)*(S+2) + j*(S+2) + k
 *             = i*R*S + 2*i*R + 2*i*S + 4*i + j*S + 2*j + k, whose terms do not
 *             divide each other; Algorithms 1-3 recover the shape
 *             [*][R+2][S+2] (alpha = 2 in each inner dimension) and the
 *             subscripts [i+d0][j+d1][k+d2], d in {-1, 0, 1}. Polly 14 rejects
 *             the flat build as non-affine. VLA build: recovered from the GEPs.
 *
 * tsopt-kernel: category=delinearization args=6,7,8,3 alt=7,7,8,3 bench=120,130,140,60 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_stencil_alpha(long Q, long R, long S, ARRAY3(double, in, Q + 2, R + 2, S + 2),
                                 ARRAY3(double, out, Q + 2, R + 2, S + 2)) {
  for (long i = 1; i <= Q; i++)
    for (long j = 1; j <= R; j++)
      for (long k = 1; k <= S; k++)
        AT3(out, i, j, k, R + 2, S + 2) =
            0.4 * AT3(in, i, j, k, R + 2, S + 2) +
            0.1 * (AT3(in, i - 1, j, k, R + 2, S + 2) + AT3(in, i + 1, j, k, R + 2, S + 2) +
                   AT3(in, i, j - 1, k, R + 2, S + 2) + AT3(in, i, j + 1, k, R + 2, S + 2) +
                   AT3(in, i, j, k - 1, R + 2, S + 2) + AT3(in, i, j, k + 1, R + 2, S + 2));
}

int main(int argc, char **argv) {
  long Q = arg_int(argc, argv, 1, 6), R = arg_int(argc, argv, 2, 7);
  long S = arg_int(argc, argv, 3, 8);
  int tsteps = arg_int(argc, argv, 4, 3);
  size_t total = (size_t)((Q + 2) * (R + 2) * (S + 2));
  double *a = alloc_array(total, sizeof(double));
  double *b = alloc_array(total, sizeof(double));
  for (size_t x = 0; x < total; x++) {
    a[x] = (double)((x * x + 3 * x) % 29) / 7.0;
    b[x] = a[x];
  }
  for (int t = 0; t < tsteps; t++) {
    TIME_KERNEL(kernel_stencil_alpha(Q, R, S, PASS3(double, a, Q + 2, R + 2, S + 2),
                                     PASS3(double, b, Q + 2, R + 2, S + 2)));
    TIME_KERNEL(kernel_stencil_alpha(Q, R, S, PASS3(double, b, Q + 2, R + 2, S + 2),
                                     PASS3(double, a, Q + 2, R + 2, S + 2)));
  }
  print_checksum("a", a, total);
  print_checksum("b", b, total);
  free(a);
  free(b);
  return 0;
}

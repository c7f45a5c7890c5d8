/*
 * detect-unsigned -- loops whose counters and bounds are unsigned: a window
 * sum out[i] = sum of in[i .. i+w-1] for i in [lo, hi), and a copy loop whose
 * unsigned bound hi - lo wraps around when hi < lo.
 *
 * Pins: issue 4, loop exits compared with unsigned predicates (icmp ult/ugt),
 * which are affine only under the assumption that the operands stay
 * non-negative as signed values.
 * Build/run:  clang-14 -O3 detect-unsigned.c -o u && ./u [n lo hi w]
 * Expected:   the loops in kernel_window_sum use unsigned comparisons: a
 *             detector without unsigned support rejects them with cause
 *             "unsigned-comparison"; with it, a SCoP over parameters lo, hi, w
 *             whose context needs lo, hi, w < 2^31 (as signed values) and
 *             whose domain is { [i, k] : lo <= i < hi and 0 <= k < w }.
 *
 * tsopt-kernel: category=detection args=64,5,50,6 alt=65,5,50,6 bench=10000000,0,9999000,16 vla=no
 */
#include "kernel.h"

KERNEL void kernel_window_sum(unsigned lo, unsigned hi, unsigned w, const double *in,
                              double *out) {
  for (unsigned i = lo; i < hi; i++) {
    double s = 0.0;
    for (unsigned k = 0; k < w; k++)
      s += in[i + k];
    out[i] = s;
  }
}

KERNEL void kernel_copy_span(unsigned lo, unsigned hi, const double *in, double *out) {
  for (unsigned i = 0; i < hi - lo; i++)
    out[i] = in[lo + i] * 2.0;
}

int main(int argc, char **argv) {
  unsigned n = (unsigned)arg_int(argc, argv, 1, 64);
  unsigned lo = (unsigned)arg_int(argc, argv, 2, 5);
  unsigned hi = (unsigned)arg_int(argc, argv, 3, 50);
  unsigned w = (unsigned)arg_int(argc, argv, 4, 6);
  if (hi < lo || hi + w > n) {
    fprintf(stderr, "need lo <= hi and hi + w <= n\n");
    return 2;
  }
  double *in = alloc_array((size_t)n, sizeof(double));
  double *out = alloc_array((size_t)n, sizeof(double));
  double *span = alloc_array((size_t)n, sizeof(double));
  for (unsigned i = 0; i < n; i++)
    in[i] = (double)((i * 13 + 5) % 17) / 3.0;
  TIME_KERNEL(kernel_window_sum(lo, hi, w, in, out));
  TIME_KERNEL(kernel_copy_span(lo, hi, in, span));
  print_checksum("out", out, (size_t)n);
  print_checksum("span", span, (size_t)n);
  free(in);
  free(out);
  free(span);
  return 0;
}

/*
 * delin-reg-detect -- a region-detection kernel in the style of PolyBench's
 * reg_detect: for every upper-triangular grid cell (j <= i) replicate its
 * tangent sum into a length-long vector, take running sums along it, keep the
 * last running sum as the cell's mean, and accumulate a diagonal path through
 * the means. Integer data.
 *
 * Pins: issue 5, delinearization with a subscript that is a size parameter
 * minus a constant: sum_diff[j][i][length-1] (flat: (j*maxgrid + i)*length +
 * length - 1). Written from the description.
 * Build/run:  clang-14 -O3 delin-reg-detect.c -o rd && ./rd [niter maxgrid length]
 *             (-DTSOPT_VLA: VLA parameters)
 * Expected:   shapes diff, sum_diff [*][maxgrid][length]; sum_tang, mean,
 *             path [*][maxgrid]; the access sum_diff[j][i][length-1] (and
 *             sum_diff[j][i][0]) is valid only when 0 <= length-1 < length,
 *             so the validity condition is length > 0 (equivalently
 *             length >= 1). Domains are triangular (i >= j).
 *
 * tsopt-kernel: category=delinearization args=2,12,8 alt=2,13,8 bench=20,500,64 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_reg_detect(int niter, long maxgrid, long length,
                              ARRAY2(int, sum_tang, maxgrid, maxgrid),
                              ARRAY2(int, mean, maxgrid, maxgrid),
                              ARRAY2(int, path, maxgrid, maxgrid),
                              ARRAY3(int, diff, maxgrid, maxgrid, length),
                              ARRAY3(int, sum_diff, maxgrid, maxgrid, length)) {
  for (int t = 0; t < niter; t++) {
    for (long j = 0; j < maxgrid; j++)
      for (long i = j; i < maxgrid; i++)
        for (long cnt = 0; cnt < length; cnt++)
          AT3(diff, j, i, cnt, maxgrid, length) = AT2(sum_tang, j, i, maxgrid) + (int)cnt;
    for (long j = 0; j < maxgrid; j++)
      for (long i = j; i < maxgrid; i++) {
        AT3(sum_diff, j, i, 0, maxgrid, length) = AT3(diff, j, i, 0, maxgrid, length);
        for (long cnt = 1; cnt < length; cnt++)
          AT3(sum_diff, j, i, cnt, maxgrid, length) =
              AT3(sum_diff, j, i, cnt - 1, maxgrid, length) + AT3(diff, j, i, cnt, maxgrid, length);
        AT2(mean, j, i, maxgrid) = AT3(sum_diff, j, i, length - 1, maxgrid, length);
      }
    for (long i = 0; i < maxgrid; i++)
      AT2(path, 0, i, maxgrid) = AT2(mean, 0, i, maxgrid);
    for (long j = 1; j < maxgrid; j++)
      for (long i = j; i < maxgrid; i++)
        AT2(path, j, i, maxgrid) = AT2(path, j - 1, i - 1, maxgrid) + AT2(mean, j, i, maxgrid);
  }
}

int main(int argc, char **argv) {
  int niter = arg_int(argc, argv, 1, 2);
  long maxgrid = arg_int(argc, argv, 2, 12);
  long length = arg_int(argc, argv, 3, 8);
  if (length < 1) {
    fprintf(stderr, "length must be at least 1\n");
    return 2;
  }
  size_t cells = (size_t)(maxgrid * maxgrid);
  int *sum_tang = alloc_array(cells, sizeof(int));
  int *mean = alloc_array(cells, sizeof(int));
  int *path = alloc_array(cells, sizeof(int));
  int *diff = alloc_array(cells * (size_t)length, sizeof(int));
  int *sum_diff = alloc_array(cells * (size_t)length, sizeof(int));
  for (long j = 0; j < maxgrid; j++)
    for (long i = 0; i < maxgrid; i++)
      sum_tang[j * maxgrid + i] = (int)((i * j) % 17) + 1;
  TIME_KERNEL(kernel_reg_detect(niter, maxgrid, length, PASS2(int, sum_tang, maxgrid, maxgrid),
                                PASS2(int, mean, maxgrid, maxgrid),
                                PASS2(int, path, maxgrid, maxgrid),
                                PASS3(int, diff, maxgrid, maxgrid, length),
                                PASS3(int, sum_diff, maxgrid, maxgrid, length)));
  print_checksum_int("mean", mean, cells);
  print_checksum_int("path", path, cells);
  print_checksum_int("sum_diff", sum_diff, cells * (size_t)length);
  free(sum_tang);
  free(mean);
  free(path);
  free(diff);
  free(sum_diff);
  return 0;
}

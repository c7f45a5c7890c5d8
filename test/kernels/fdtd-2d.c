/*
 * fdtd-2d -- tmax steps of a 2-d finite-difference time-domain update of the
 * fields ex, ey, hz (each nx x ny), with a source value fict[t] on row 0.
 *
 * Pins: PolyBench-style stencil (issues 4, 5, 6, 7): four statements per
 * time step with different domains (row 0, rows >= 1, columns >= 1, interior).
 * Build/run:  clang-14 -O3 fdtd-2d.c -o fdtd-2d && ./fdtd-2d [tmax nx ny]
 *             (-DTSOPT_VLA: VLA parameters)
 * Expected:   one SCoP in kernel_fdtd_2d; parameters tmax, nx, ny; shapes
 *             ex[*][ny], ey[*][ny], hz[*][ny], fict[*].
 *
 * tsopt-kernel: category=polybench args=10,20,24 alt=11,20,24 bench=200,1000,1200 vla=yes
 */
#include "kernel.h"

KERNEL void kernel_fdtd_2d(int tmax, int nx, int ny, ARRAY2(double, ex, nx, ny),
                           ARRAY2(double, ey, nx, ny), ARRAY2(double, hz, nx, ny),
                           ARRAY1(double, fict, tmax)) {
  for (int t = 0; t < tmax; t++) {
    for (int j = 0; j < ny; j++)
      AT2(ey, 0, j, ny) = AT1(fict, t);
    for (int i = 1; i < nx; i++)
      for (int j = 0; j < ny; j++)
        AT2(ey, i, j, ny) -= 0.5 * (AT2(hz, i, j, ny) - AT2(hz, i - 1, j, ny));
    for (int i = 0; i < nx; i++)
      for (int j = 1; j < ny; j++)
        AT2(ex, i, j, ny) -= 0.5 * (AT2(hz, i, j, ny) - AT2(hz, i, j - 1, ny));
    for (int i = 0; i < nx - 1; i++)
      for (int j = 0; j < ny - 1; j++)
        AT2(hz, i, j, ny) -= 0.7 * (AT2(ex, i, j + 1, ny) - AT2(ex, i, j, ny) +
                                    AT2(ey, i + 1, j, ny) - AT2(ey, i, j, ny));
  }
}

int main(int argc, char **argv) {
  int tmax = arg_int(argc, argv, 1, 10);
  int nx = arg_int(argc, argv, 2, 20);
  int ny = arg_int(argc, argv, 3, 24);
  double *ex = alloc_array((size_t)nx * ny, sizeof(double));
  double *ey = alloc_array((size_t)nx * ny, sizeof(double));
  double *hz = alloc_array((size_t)nx * ny, sizeof(double));
  double *fict = alloc_array((size_t)tmax, sizeof(double));
  for (int t = 0; t < tmax; t++)
    fict[t] = (double)t;
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++) {
      ex[i * ny + j] = ((double)i * (j + 1)) / nx;
      ey[i * ny + j] = ((double)i * (j + 2)) / ny;
      hz[i * ny + j] = ((double)i * (j + 3)) / nx;
    }
  TIME_KERNEL(kernel_fdtd_2d(tmax, nx, ny, PASS2(double, ex, nx, ny), PASS2(double, ey, nx, ny),
                             PASS2(double, hz, nx, ny), PASS1(double, fict, tmax)));
  print_checksum("ex", ex, (size_t)nx * ny);
  print_checksum("ey", ey, (size_t)nx * ny);
  print_checksum("hz", hz, (size_t)nx * ny);
  free(ex);
  free(ey);
  free(hz);
  free(fict);
  return 0;
}

/*
 * delin-edge-detect -- Sobel edge detection in the style of UTDSP's
 * edge_detect: three row pointers (above, row, below) walk down an image whose
 * rows are NN ints apart and are advanced by NN after every row; each interior
 * pixel gets 255 where |gx| + |gy| exceeds a threshold, else 0.
 *
 * Pins: issue 5, delinearization of pointer-chasing code: the base pointers
 * are PHIs {image, +, 4*NN}<rows> and the accesses above[c-1], row[c+1], ...
 * become image + 4*(NN*r + c + d) only through scalar evolution. Sizes and
 * counters are int, as in UTDSP: the offsets are sign-extended 32-bit
 * products. Polly 14 models the nest but dismisses it (some of its inbounds
 * assumptions come out false); with long sizes it keeps it under
 * NN >= cols. Written from the description.
 * Build/run:  clang-14 -O3 delin-edge-detect.c -o e && ./e [rows cols NN threshold]
 * Expected:   image and edges recovered with shape [*][NN] and subscripts
 *             [r + dr][c + dc] (dr, dc in {-1, 0, 1}); validity needs
 *             c + 1 < NN for every c < cols - 1, i.e. cols <= NN, which holds
 *             for the real parameters (cols <= NN is checked in main).
 *             The flat build is the only one (the pointer walk is the point).
 *
 * tsopt-kernel: category=delinearization args=16,20,24,300 alt=17,20,24,300 bench=5000,5000,5120,300 vla=no
 */
#include "kernel.h"

KERNEL void kernel_edge_detect(int rows, int cols, int NN, int threshold, const int *image,
                               int *edges) {
  const int *above = image;
  const int *row = image + NN;
  const int *below = image + 2 * NN;
  int *out = edges + NN;
  for (int r = 1; r < rows - 1; r++) {
    for (int c = 1; c < cols - 1; c++) {
      int gx = (above[c + 1] + 2 * row[c + 1] + below[c + 1]) -
               (above[c - 1] + 2 * row[c - 1] + below[c - 1]);
      int gy = (below[c - 1] + 2 * below[c] + below[c + 1]) -
               (above[c - 1] + 2 * above[c] + above[c + 1]);
      int magnitude = abs(gx) + abs(gy);
      out[c] = magnitude > threshold ? 255 : 0;
    }
    above += NN;
    row += NN;
    below += NN;
    out += NN;
  }
}

int main(int argc, char **argv) {
  int rows = arg_int(argc, argv, 1, 16), cols = arg_int(argc, argv, 2, 20);
  int NN = arg_int(argc, argv, 3, 24);
  int threshold = arg_int(argc, argv, 4, 300);
  if (cols > NN || rows < 1) {
    fprintf(stderr, "need cols <= NN and rows >= 1\n");
    return 2;
  }
  size_t pixels = (size_t)rows * (size_t)NN;
  int *image = alloc_array(pixels, sizeof(int));
  int *edges = alloc_array(pixels, sizeof(int));
  for (size_t r = 0; r < (size_t)rows; r++)
    for (size_t c = 0; c < (size_t)NN; c++)
      image[r * NN + c] = (int)(((r / 3) * 37 + (c / 4) * 91 + r * c) % 256);
  TIME_KERNEL(kernel_edge_detect(rows, cols, NN, threshold, image, edges));
  print_checksum_int("edges", edges, pixels);
  free(image);
  free(edges);
  return 0;
}

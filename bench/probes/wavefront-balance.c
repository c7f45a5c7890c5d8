// How evenly the wavefronts of time tiles (transform/wavefront.ts) share out over the threads,
// counted, not timed: each statement instance of a PolyBench LARGE stencil (jacobi-2d, heat-3d,
// fdtd-2d) is put in its tile the way tscc's time tiling does (members [t, s*t + x1 + c1,
// s*t + x2 + c2], tile coordinates floor(member / size), shifts c as time-tiling.ts solves them
// for these kernels), the tiles are grouped in wavefronts w = T0 + T1 (or T0 + T1 + T2), and for
// each wavefront the parallel loop's iterations (one per T1, each running its T2.. tiles) are
// shared out as codegen/ast-to-ir.ts does: in a zigzag (t, 2T-1-t, 2T+t, ...), in contiguous
// blocks, or claimed dynamically (each to the thread with the least work so far, in loop order).
// The bound on the speedup is the total work over the sum of each wavefront's busiest thread.
// Work is statement instances (heat-3d: rows of its innermost loop, each N - 2 instances).
// "point" is --omp-tile-sync=point (codegen/ast-to-ir.ts, generatePointSync): one team, the
// columns (w, T1) claimed in wavefront order by the thread free first, each started once its
// thread is free and the columns (w - 1, T1) and (w - 1, T1 - 1) are done (the offsets tsopt's
// isl count gives these stencils at depth 2; (w - 2, T1 - 1) follows from them); the bound is the
// total work over the last column's end. No cost is counted for a claim or a wait.
//
//   cc -O2 -o /tmp/wb bench/probes/wavefront-balance.c
//   /tmp/wb KERNEL T W1 W2 FRONT [THREADS]     KERNEL 0 jacobi-2d, 1 heat-3d, 2 fdtd-2d;
//                                               FRONT 2: w = T0 + T1, 3: w = T0 + T1 + T2
//   /tmp/wb 0 32 64 512 2; /tmp/wb 1 4 8 8 2; /tmp/wb 2 32 64 512 2   (tscc's sizes at LARGE)
//
// Found (session 12, tscc's sizes, two threads): jacobi-2d 51 wavefronts of at most 11 tiles,
// bound 1.82 zigzag / 1.89 dynamic; heat-3d 265 of at most 8, 1.83 / 1.85; fdtd-2d 39 of at most
// 12, 1.80 / 1.88. Narrower tiles hold more per wavefront (heat-3d 4 x 4 x 8: 1.96 dynamic;
// w = T0 + T1 + T2 at tscc's sizes: 1.99), not timed yet: their reuse is less.
#include <stdio.h>
#include <stdlib.h>

#define MAXW 4096
#define MAXA 1024
#define OFF 64
static int T, W1, W2, FD;
static double *work; // [w][T1 + 8]

static int tileOf(int m, int w) { return (m + OFF * w) / w - OFF; }

static void add(int t, int m1, int m2, double c) {
  int T0 = t / T, T1 = tileOf(m1, W1), T2 = tileOf(m2, W2);
  int w = FD == 2 ? T0 + T1 : T0 + T1 + T2, a = T1 + 8;
  if (w < 0 || w >= MAXW || a < 0 || a >= MAXA) { fprintf(stderr, "tile out of range: w %d T1 %d\n", w, T1); exit(1); }
  work[(size_t)w * MAXA + a] += c;
}

int main(int argc, char **argv) {
  if (argc < 6) { fprintf(stderr, "usage: %s KERNEL T W1 W2 FRONT [THREADS]\n", argv[0]); return 2; }
  int kernel = atoi(argv[1]), nt = argc > 6 ? atoi(argv[6]) : 2;
  T = atoi(argv[2]); W1 = atoi(argv[3]); W2 = atoi(argv[4]); FD = atoi(argv[5]);
  if (nt < 1 || nt > 64 || T < 1 || W1 < 1 || W2 < 1 || (FD != 2 && FD != 3)) { fprintf(stderr, "bad arguments\n"); return 2; }
  work = calloc((size_t)MAXW * MAXA, sizeof(double));
  if (kernel == 0) { // jacobi-2d: skew 2, B's statement shifted by 0, A's by 1
    int N = 1300, steps = 500, s = 2;
    for (int t = 0; t < steps; t++) for (int i = 1; i < N - 1; i++) for (int j = 1; j < N - 1; j++) {
      add(t, s * t + i, s * t + j, 1); add(t, s * t + i + 1, s * t + j + 1, 1); }
  } else if (kernel == 1) { // heat-3d: skew 2; the innermost k (one tile of 256) as a row of N - 2
    int N = 120, steps = 500, s = 2;
    for (int t = 1; t <= steps; t++) for (int i = 1; i < N - 1; i++) for (int j = 1; j < N - 1; j++) {
      add(t, s * t + i, s * t + j, N - 2); add(t, s * t + i + 1, s * t + j + 1, N - 2); }
  } else { // fdtd-2d: skew 1; ey[0][j], ey, ex, hz
    int NX = 1000, NY = 1200, steps = 500, s = 1;
    for (int t = 0; t < steps; t++) {
      for (int j = 0; j < NY; j++) add(t, s * t, s * t + j, 1);
      for (int i = 1; i < NX; i++) for (int j = 0; j < NY; j++) add(t, s * t + i, s * t + j, 1);
      for (int i = 0; i < NX; i++) for (int j = 1; j < NY; j++) add(t, s * t + i, s * t + j, 1);
      for (int i = 0; i < NX - 1; i++) for (int j = 0; j < NY - 1; j++) add(t, s * t + i + 1, s * t + j + 1, 1); }
  }
  // Point to point: columns in claim order, each thread's next free time, each column's end.
  double *end = calloc((size_t)MAXW * MAXA, sizeof(double)), freeAt[64] = {0}, span = 0;
  for (int w = 0; w < MAXW; w++) for (int a = 1; a < MAXA; a++) {
    double x = work[(size_t)w * MAXA + a];
    if (x <= 0) continue;
    int least = 0;
    for (int t = 1; t < nt; t++) if (freeAt[t] < freeAt[least]) least = t;
    double start = freeAt[least];
    if (w > 0) {
      double e0 = end[(size_t)(w - 1) * MAXA + a], e1 = end[(size_t)(w - 1) * MAXA + a - 1];
      start = e0 > start ? e0 : start; start = e1 > start ? e1 : start;
    }
    end[(size_t)w * MAXA + a] = freeAt[least] = start + x;
    span = start + x > span ? start + x : span;
  }
  free(end);
  double total = 0, zig = 0, blk = 0, dyn = 0, tiles = 0;
  int fronts = 0, single = 0, most = 0;
  for (int w = 0; w < MAXW; w++) {
    const double *row = work + (size_t)w * MAXA;
    int lo = -1, hi = -1;
    for (int a = 0; a < MAXA; a++) if (row[a] > 0) { if (lo < 0) lo = a; hi = a; }
    if (lo < 0) continue;
    int n = hi - lo + 1;
    fronts++; single += n == 1; most = n > most ? n : most; tiles += n;
    double z[64] = {0}, b[64] = {0}, d[64] = {0};
    int chunk = (n + nt - 1) / nt;
    for (int k = 0; k < n; k++) {
      double x = row[lo + k];
      total += x;
      int r = k % (2 * nt);
      z[r < nt ? r : 2 * nt - 1 - r] += x;
      b[k / chunk] += x;
      int least = 0;
      for (int t = 1; t < nt; t++) if (d[t] < d[least]) least = t;
      d[least] += x;
    }
    double mz = 0, mb = 0, md = 0;
    for (int t = 0; t < nt; t++) { mz = z[t] > mz ? z[t] : mz; mb = b[t] > mb ? b[t] : mb; md = d[t] > md ? d[t] : md; }
    zig += mz; blk += mb; dyn += md;
  }
  printf("kernel %d, tiles %d x %d x %d, w = T0 + T1%s, %d threads: %d wavefronts (%d of one tile), at most %d tiles, mean %.1f; "
         "bound zigzag %.3f, block %.3f, dynamic %.3f, point %.3f\n",
         kernel, T, W1, W2, FD == 3 ? " + T2" : "", nt, fronts, single, most, tiles / fronts, total / zig, total / blk, total / dyn, total / span);
  free(work);
  return 0;
}

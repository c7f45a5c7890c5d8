/*
 * kernel.h -- shared conventions for tsopt's test kernels (see README.md here).
 *
 * One source builds two ways:
 *   default         array parameters are flat pointers (`double *A`) and every
 *                   subscript is linearized by hand (`A[i*nj + j]`), without
 *                   restrict, so the arrays may alias;
 *   -DTSOPT_VLA     array parameters are C99 variable-length arrays
 *                   (`double A[ni][nj]`) and subscripts are `A[i][j]`.
 *
 * In a kernel's parameter list write ARRAY2(double, A, ni, nj); in its body
 * write AT2(A, i, j, nj). The last size of each AT macro is the row length the
 * flat form needs to linearize; the VLA form ignores it (its type carries it).
 * An empty outermost size (ARRAY3(double, A, , n1, n2)) declares `A[][n1][n2]`
 * in the VLA build, for kernels that must not know it.
 * In main, pass an allocation with PASS2(double, A, ni, nj), which adds the
 * pointer-to-VLA cast the -DTSOPT_VLA build needs.
 *
 * -DTSOPT_RESTRICT (either build) additionally qualifies every array
 * parameter `restrict`, so that -O3's LICM and GVN may promote array elements
 * to registers inside the kernel (the scalar dependences DeLICM removes);
 * without it the arrays may alias and -O3 keeps most accesses in memory.
 *
 * main() never uses these macros for its own loops: initialization and
 * checksums stay flat in both builds, so the builds differ only in the kernel.
 */
#ifndef TSOPT_KERNEL_H
#define TSOPT_KERNEL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TSOPT_RESTRICT
#define TSOPT_RESTRICT_KW restrict
#else
#define TSOPT_RESTRICT_KW
#endif

#ifdef TSOPT_VLA
#define ARRAY1(T, A, n0) T A[TSOPT_RESTRICT_KW n0]
#define ARRAY2(T, A, n0, n1) T A[TSOPT_RESTRICT_KW n0][n1]
#define ARRAY3(T, A, n0, n1, n2) T A[TSOPT_RESTRICT_KW n0][n1][n2]
#define AT1(A, i) A[i]
#define AT2(A, i, j, n1) A[i][j]
#define AT3(A, i, j, k, n1, n2) A[i][j][k]
#define PASS1(T, p, n0) (p)
#define PASS2(T, p, n0, n1) ((T(*)[n1])(p))
#define PASS3(T, p, n0, n1, n2) ((T(*)[n1][n2])(p))
#else
#define ARRAY1(T, A, n0) T *TSOPT_RESTRICT_KW A
#define ARRAY2(T, A, n0, n1) T *TSOPT_RESTRICT_KW A
#define ARRAY3(T, A, n0, n1, n2) T *TSOPT_RESTRICT_KW A
#define AT1(A, i) A[i]
#define AT2(A, i, j, n1) A[(i) * (n1) + (j)]
#define AT3(A, i, j, k, n1, n2) A[((i) * (n1) + (j)) * (n2) + (k)]
#define PASS1(T, p, n0) (p)
#define PASS2(T, p, n0, n1) (p)
#define PASS3(T, p, n0, n1, n2) (p)
#endif

#define KERNEL __attribute__((noinline))

/* The idx-th command-line argument as a positive int, or `fallback` when absent. */
static inline int arg_int(int argc, char **argv, int idx, int fallback) {
  if (argc <= idx) return fallback;
  char *end = NULL;
  long v = strtol(argv[idx], &end, 10);
  if (end == argv[idx] || *end != '\0' || v < 0 || v > 100000000L) {
    fprintf(stderr, "bad size argument %d: '%s'\n", idx, argv[idx]);
    exit(2);
  }
  return (int)v;
}

/* A zeroed allocation of n elements of `size` bytes; at least one element, so
 * that size 0 still gives a valid pointer. */
static inline void *alloc_array(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p) {
    fprintf(stderr, "out of memory (%zu x %zu bytes)\n", n, size);
    exit(3);
  }
  return p;
}

/*
 * Prints `name: n=<count> sum=<plain sum> wsum=<position-weighted sum>`.
 * The weights (1..13, by position) make a wrong or misplaced element change
 * the output even when the plain sum would not.
 */
static inline void print_checksum(const char *name, const double *a, size_t n) {
  double sum = 0.0, wsum = 0.0;
  for (size_t k = 0; k < n; k++) {
    sum += a[k];
    wsum += a[k] * (double)(k % 13 + 1);
  }
  printf("%s: n=%zu sum=%.6e wsum=%.6e\n", name, n, sum, wsum);
}

static inline void print_checksum_float(const char *name, const float *a, size_t n) {
  double sum = 0.0, wsum = 0.0;
  for (size_t k = 0; k < n; k++) {
    sum += a[k];
    wsum += (double)a[k] * (double)(k % 13 + 1);
  }
  printf("%s: n=%zu sum=%.6e wsum=%.6e\n", name, n, sum, wsum);
}

static inline void print_checksum_int(const char *name, const int *a, size_t n) {
  long long sum = 0, wsum = 0;
  for (size_t k = 0; k < n; k++) {
    sum += a[k];
    wsum += (long long)a[k] * (long long)(k % 13 + 1);
  }
  printf("%s: n=%zu sum=%lld wsum=%lld\n", name, n, sum, wsum);
}

/*
 * TIME_KERNEL(...) wraps every kernel call in main (a statement; an assignment
 * of the kernel's result may go inside: TIME_KERNEL(s = kernel_x(...))). In the
 * default build it is the call alone. With -DTSOPT_TIME (the benchmark's build,
 * bench/suites.ts) it adds the process's CPU time spent inside the wrapped
 * calls (clock_gettime(CLOCK_PROCESS_CPUTIME_ID): a loaded machine disturbs it
 * less than wall time) and prints the sum as the last line of stdout at exit,
 * `kernel-seconds: 0.123456789`, as PolyBench's -DPOLYBENCH_TIME does: the
 * benchmark times the kernel, not the program's start, allocation and
 * initialization. (At the end of this file so that the line numbers above,
 * which polly-reference.json records for the inlined checksum loops, stay.)
 */
#ifdef TSOPT_TIME
#include <time.h>

static double tsopt_kernel_seconds;

static inline double tsopt_cpu_seconds(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) {
    perror("clock_gettime(CLOCK_PROCESS_CPUTIME_ID)");
    exit(4);
  }
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void tsopt_print_kernel_seconds(void) {
  printf("kernel-seconds: %.9f\n", tsopt_kernel_seconds);
}

/* Registered before main runs, so the time line comes after everything main printed. */
__attribute__((constructor)) static void tsopt_register_kernel_timer(void) {
  atexit(tsopt_print_kernel_seconds);
}

#define TIME_KERNEL(...)                                        \
  do {                                                          \
    double tsopt_start_ = tsopt_cpu_seconds();                  \
    __VA_ARGS__;                                                \
    tsopt_kernel_seconds += tsopt_cpu_seconds() - tsopt_start_; \
  } while (0)
#else
#define TIME_KERNEL(...) \
  do {                   \
    __VA_ARGS__;         \
  } while (0)
#endif

#endif

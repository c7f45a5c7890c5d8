// Shared by the uBLAS benchmarks: size from argv, deterministic initialization, a timer around
// the kernel only, and either the time (timing build) or checksums (-DUBLAS_DUMP) on stdout.
#ifndef TSOPT_UBLAS_COMMON_HPP
#define TSOPT_UBLAS_COMMON_HPP
#include <boost/numeric/ublas/matrix.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#ifdef UBLAS_DUMP
#define UBLAS_DUMP_STREAM stdout
#else
#define UBLAS_DUMP_STREAM stderr
#endif

namespace ublas = boost::numeric::ublas;
using Matrix = ublas::matrix<double>;

inline std::size_t sizeArg(int argc, char **argv, std::size_t fallback) {
  if (argc < 2) return fallback;
  long n = std::strtol(argv[1], nullptr, 10);
  if (n <= 0 || n > 20000) {
    std::fprintf(stderr, "bad size '%s'\n", argv[1]);
    std::exit(2);
  }
  return static_cast<std::size_t>(n);
}

/** Deterministic values in [0, 1): no rand(), the same on every compiler. */
inline void fill(Matrix &m, int salt) {
  for (std::size_t i = 0; i < m.size1(); i++)
    for (std::size_t j = 0; j < m.size2(); j++)
      m(i, j) = static_cast<double>((i * (j + salt) + 7 * salt) % 101) / 101.0;
}

/**
 * One line per matrix: element count, sum and position-weighted sum (catches misplaced values).
 * On stdout in the checking build (-DUBLAS_DUMP); on stderr in the timing build, where it is
 * there so that the compiler cannot drop the kernel as dead code.
 */
inline void dump(const char *name, const Matrix &m) {
  double sum = 0, wsum = 0;
  for (std::size_t i = 0; i < m.size1(); i++)
    for (std::size_t j = 0; j < m.size2(); j++) {
      sum += m(i, j);
      wsum += m(i, j) * static_cast<double>((i * m.size2() + j) % 97 + 1);
    }
  std::fprintf(UBLAS_DUMP_STREAM, "%s: n=%zu sum=%.6e wsum=%.6e\n", name, m.size1() * m.size2(), sum, wsum);
}

template <typename F> double timed(F kernel) {
  auto t0 = std::chrono::steady_clock::now();
  kernel();
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count();
}

inline void report(double seconds) {
#ifndef UBLAS_DUMP
  std::printf("%0.6f\n", seconds);
#else
  (void)seconds;
#endif
}
#endif

// The bench's `limit` variant: the PolyBench BLAS-3 kernels computed by OpenBLAS (Debian's
// libopenblas-dev), one thread, timed in the same interleaved rounds as the compilers. It is
// what the machine can do on the same sizes: issue 23's gemm target is a share of it.
//
// The program is PolyBench's own source with the body of its kernel function (between
// `#pragma scop` and `#pragma endscop`) replaced by the BLAS calls that compute the same, so
// initialization, timer and dump stay PolyBench's. OpenBLAS runs with OPENBLAS_NUM_THREADS=1
// and without OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, which some environments set to pin an older
// kernel; which kernel ran is recorded (`openblasFacts`).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LIMIT, type Program, type Variant } from './harness';

const NO_TRANS = 'CblasNoTrans';
const dgemm = (m: string, n: string, k: string, alpha: string, a: string, lda: string, b: string, ldb: string, beta: string, c: string, ldc: string): string =>
  `cblas_dgemm(CblasRowMajor, ${NO_TRANS}, ${NO_TRANS}, ${m}, ${n}, ${k}, ${alpha}, &${a}[0][0], ${lda}, &${b}[0][0], ${ldb}, ${beta}, &${c}[0][0], ${ldc});`;

/**
 * Per PolyBench kernel, the BLAS calls computing what its SCoP computes (row-major; the leading
 * dimensions are the kernel's size parameters, equal to the arrays' declared sizes). The check
 * build compares their output with clang -O3's under PolyBench's tolerance (BLAS reassociates).
 */
export const BLAS_CALLS: Readonly<Record<string, string>> = {
  gemm: dgemm('ni', 'nj', 'nk', 'alpha', 'A', 'nk', 'B', 'nj', 'beta', 'C', 'nj'),
  // tmp := alpha A B; D := tmp C + beta D
  '2mm': [dgemm('ni', 'nj', 'nk', 'alpha', 'A', 'nk', 'B', 'nj', '0.0', 'tmp', 'nj'), dgemm('ni', 'nl', 'nj', '1.0', 'tmp', 'nj', 'C', 'nl', 'beta', 'D', 'nl')].join('\n  '),
  // E := A B; F := C D; G := E F
  '3mm': [dgemm('ni', 'nj', 'nk', '1.0', 'A', 'nk', 'B', 'nj', '0.0', 'E', 'nj'), dgemm('nj', 'nl', 'nm', '1.0', 'C', 'nm', 'D', 'nl', '0.0', 'F', 'nl'),
    dgemm('ni', 'nl', 'nj', '1.0', 'E', 'nj', 'F', 'nl', '0.0', 'G', 'nl')].join('\n  '),
  // the lower triangle of C := alpha A A^T + beta C
  syrk: 'cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, n, m, alpha, &A[0][0], m, beta, &C[0][0], n);',
  // the lower triangle of C := alpha (A B^T + B A^T) + beta C
  syr2k: 'cblas_dsyr2k(CblasRowMajor, CblasLower, CblasNoTrans, n, m, alpha, &A[0][0], m, &B[0][0], m, beta, &C[0][0], n);',
  // B := alpha A^T B, A unit lower triangular
  trmm: 'cblas_dtrmm(CblasRowMajor, CblasLeft, CblasLower, CblasTrans, CblasUnit, m, n, alpha, &A[0][0], m, &B[0][0], n);',
  // C := alpha A B + beta C, A symmetric (its lower triangle)
  symm: 'cblas_dsymm(CblasRowMajor, CblasLeft, CblasLower, m, n, alpha, &A[0][0], m, &B[0][0], n, beta, &C[0][0], n);',
};

/** The environment OpenBLAS runs in: one thread, no pinned kernel or cache size. */
export function limitEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, OPENBLAS_NUM_THREADS: '1' };
  delete env.OPENBLAS_CORETYPE;
  delete env.OPENBLAS_L2_SIZE;
  return env;
}

/**
 * PolyBench's source of `p` with its SCoP replaced by the BLAS calls, written under `dir`; a
 * reason when the program has none (a kernel BLAS does not compute, not a PolyBench program).
 */
export function limitSource(p: Program, dir: string): string | { reason: string } {
  const calls = BLAS_CALLS[p.name];
  const src = p.sources.find((s) => path.basename(s) === `${p.name}.c`);
  if (calls === undefined || src === undefined) return { reason: 'no BLAS call computes this kernel' };
  const text = fs.readFileSync(src, 'utf8');
  const scop = /#pragma scop[\s\S]*?#pragma endscop/;
  if (!scop.test(text)) return { reason: `no #pragma scop in ${src}` };
  const out = path.join(dir, `${p.name}.blas.c`);
  fs.writeFileSync(out, `#include <cblas.h>\n${text.replace(scop, () => `{\n  ${calls}\n}`)}`);
  return out;
}

/** clang -O3 on the BLAS version of each kernel, linked with OpenBLAS and run in `limitEnv`. */
export function limitVariant(): Variant {
  const cc = ['clang-14', '-O3', '-march=native'];
  return {
    name: LIMIT,
    cc,
    cxx: ['clang++-14', '-O3', '-march=native'],
    only: 'c',
    env: limitEnv(),
    rewrite: (p, dir) => {
      const source = limitSource(p, dir);
      if (typeof source !== 'string') return source;
      return { ...p, sources: [...p.sources.filter((s) => path.basename(s) !== `${p.name}.c`), source], libs: [...p.libs, '-lopenblas'] };
    },
  };
}

/** What OpenBLAS says about itself in `limitEnv`: its build configuration and the kernel it picked (`openblas_get_corename`). */
export function openblasFacts(dir: string): { config: string; corename: string; threads: number } | { error: string } {
  const src = path.join(dir, 'openblas-probe.c');
  const exe = path.join(dir, 'openblas-probe');
  fs.writeFileSync(src, [
    '#include <stdio.h>',
    'char *openblas_get_config(void);',
    'char *openblas_get_corename(void);',
    'int openblas_get_num_threads(void);',
    'int main(void) { printf("%s\\n%s\\n%d\\n", openblas_get_config(), openblas_get_corename(), openblas_get_num_threads()); return 0; }',
    '',
  ].join('\n'));
  const built = spawnSync('clang-14', [src, '-o', exe, '-lopenblas'], { encoding: 'utf8' });
  if (built.status !== 0) return { error: `cannot link OpenBLAS (apt-get install libopenblas-dev): ${(built.stderr ?? built.error?.message ?? '').trim().split('\n')[0]}` };
  const r = spawnSync(exe, [], { encoding: 'utf8', env: limitEnv() });
  const [config, corename, threads] = (r.stdout ?? '').trim().split('\n');
  if (r.status !== 0 || corename === undefined) return { error: `the OpenBLAS probe failed: ${r.stderr ?? r.error?.message}` };
  return { config: config!, corename, threads: Number(threads) };
}

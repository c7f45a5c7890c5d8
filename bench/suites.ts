// The programs of each benchmark suite: PolyBench/C 4.2.1 (a checkout given on the command
// line, never committed here), our uBLAS kernels (bench/ublas), and our own C kernels (test/kernels).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Program, Tolerance } from './harness';

const root = path.resolve(__dirname, '..', '..');

/** PolyBench prints arrays with `%0.2lf`: half a unit of the last digit, plus rounding noise. */
export const POLYBENCH_TOLERANCE: Tolerance = { relative: 1e-4, absolute: 0.011 };
/** Our kernels and uBLAS programs print `%.6e`: differences in reassociated sums stay far below this. */
export const PRINTED_E_TOLERANCE: Tolerance = { relative: 1e-5, absolute: 0 };

/** Kernels listed in PolyBench's own `utilities/benchmark_list`, optionally filtered by name. */
export function polybenchPrograms(dir: string, dataset: string, vla: boolean, only?: Set<string>): Program[] {
  const list = path.join(dir, 'utilities', 'benchmark_list');
  if (!fs.existsSync(list)) throw new Error(`${dir} is not a PolyBench/C 4.2.1 checkout (no utilities/benchmark_list)`);
  const utilities = path.join(dir, 'utilities');
  const programs: Program[] = [];
  for (const line of fs.readFileSync(list, 'utf8').split('\n')) {
    const rel = line.trim();
    if (rel === '') continue;
    const src = path.join(dir, rel);
    const name = path.basename(rel, '.c');
    if (only && !only.has(name)) continue;
    programs.push({
      name,
      cxx: false,
      sources: [path.join(utilities, 'polybench.c'), src],
      flags: [`-I${utilities}`, `-I${path.dirname(src)}`, ...(vla ? ['-DPOLYBENCH_USE_C99_PROTO'] : [])],
      checkFlags: ['-DSMALL_DATASET', '-DPOLYBENCH_DUMP_ARRAYS'],
      timeFlags: [`-D${dataset}_DATASET`, '-DPOLYBENCH_TIME'],
      checkArgs: [],
      timeArgs: [],
      libs: ['-lm'],
      checkStream: 'stderr',
      timing: 'printed',
    });
  }
  if (only) {
    const missing = [...only].filter((k) => !programs.some((p) => p.name === k));
    if (missing.length > 0) throw new Error(`no such PolyBench kernel: ${missing.join(', ')}`);
  }
  return programs;
}

/** The `tsopt-kernel:` header line of one of our kernels (see test/kernels/README.md). */
function kernelHeader(text: string): Record<string, string> | undefined {
  const m = /tsopt-kernel:(.*)/.exec(text);
  if (!m) return undefined;
  const fields: Record<string, string> = {};
  for (const word of m[1].trim().split(/\s+/)) {
    const eq = word.indexOf('=');
    if (eq > 0) fields[word.slice(0, eq)] = word.slice(eq + 1);
  }
  return fields;
}

/**
 * Our own kernels, built once with -DTSOPT_TIME, which prints the CPU time spent inside the
 * kernel calls as the last line (test/kernels/kernel.h): the kernel, not the program's start,
 * allocation and initialization. Checked at their default sizes (`args`; the harness leaves the
 * time line out of the comparison), timed at their `bench` sizes (their test sizes with `tiny`,
 * for smoke runs). One build, not a checking and a timing one: Polly alone takes 15 s of CPU
 * on gemm.
 */
export function kernelPrograms(dir: string, only?: Set<string>, tiny = false): Program[] {
  const programs: Program[] = [];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.c')).sort()) {
    const name = path.basename(file, '.c');
    if (only && !only.has(name)) continue;
    const header = kernelHeader(fs.readFileSync(path.join(dir, file), 'utf8'));
    if (!header) continue;
    const split = (s: string | undefined) => (s ?? '').split(',').filter(Boolean);
    programs.push({
      name,
      cxx: false,
      sources: [path.join(dir, file)],
      flags: [`-I${dir}`],
      checkFlags: ['-DTSOPT_TIME'],
      timeFlags: ['-DTSOPT_TIME'],
      checkArgs: split(header.args),
      timeArgs: tiny ? split(header.args) : split(header.bench ?? header.args),
      libs: [...(header.libs ?? '').split(',').filter(Boolean), '-lm'],
      checkStream: 'stdout',
      timing: 'printed',
    });
  }
  if (only) {
    const missing = [...only].filter((k) => !programs.some((p) => p.name === k));
    if (missing.length > 0) throw new Error(`no such kernel in ${dir}: ${missing.join(', ')}`);
  }
  return programs;
}

export const UBLAS_DIR = path.join(root, 'bench', 'ublas');

/** Our Boost uBLAS versions of gemm, 2mm, syrk, trmm, covariance, correlation and jacobi-2d (bench/ublas/*.cpp). */
export function ublasPrograms(dataset: string, only?: Set<string>): Program[] {
  const sizes: Record<string, string> = { MINI: '20', SMALL: '60', MEDIUM: '200', LARGE: '1000', EXTRALARGE: '2000' };
  const n = sizes[dataset] ?? sizes.LARGE;
  return fs
    .readdirSync(UBLAS_DIR)
    .filter((f) => f.endsWith('.cpp'))
    .sort()
    .map((f) => path.basename(f, '.cpp'))
    .filter((name) => !only || only.has(name))
    .map((name) => ({
      name,
      cxx: true,
      sources: [path.join(UBLAS_DIR, `${name}.cpp`)],
      flags: ['-DNDEBUG', '-DBOOST_UBLAS_NDEBUG'],
      checkFlags: ['-DUBLAS_DUMP'],
      timeFlags: [],
      checkArgs: [sizes.SMALL],
      timeArgs: [n],
      libs: [],
      checkStream: 'stdout',
      timing: 'printed',
    }));
}

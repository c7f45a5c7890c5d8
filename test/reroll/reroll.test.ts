// Re-rolled fast paths (codegen/reroll.ts): loops clang -O3 runtime-unrolled before tsopt
// sees them run rolled in the fast path, over their whole index range, for every trip count.
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize -emit-llvm | tsopt --verify-each | llc-14 -O3 | clang-14
// must print what clang-14 -O3 prints at trip counts 0, 1, 2, 3, 4, 5, 7 (not multiples of the
// unroll factor), the rolled fast path must exist and be vectorized, and copies that differ
// from the remainder's body keep their unrolled form. Remainders come as loops (unroll by 4, 8)
// and as one guarded block (unroll by 2).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildKernel, listKernels, runKernel } from '../support/kernels';
import { compileToIr, disassemble, assemble, kernelsDir, repoRoot, run, runOk, tempDir } from '../support/tools';

const tsopt = path.join(repoRoot, 'bin', 'tsopt.js');
const fixture = path.join(__dirname, 'fixtures', 'reroll-1d.c');
const work = tempDir('tsopt-reroll-');
// AVX2's wider vectors make -O3 unroll most of the kernels' loops by 4 and 8 with remainder loops
// (without it, by 2 with a single remainder block); the bench builds with -march=native. The
// programs run only where the CPU has AVX2 and FMA.
const AVX2 = /^flags\s*:.*\bavx2\b.*\bfma\b|^flags\s*:.*\bfma\b.*\bavx2\b/m.test(fs.readFileSync('/proc/cpuinfo', 'utf8'));
const TARGET = AVX2 ? ['-march=x86-64-v3'] : [];
const IR_FLAGS = ['-O3', ...TARGET, '-fno-vectorize', '-fno-slp-vectorize', `-I${kernelsDir}`];
const TRIP_COUNTS = ['0', '1', '2', '3', '4', '5', '7'];

interface ScopFields {
  location: string;
  versioned?: boolean;
  rerolledLoops?: number;
  fastPathParallelLoops?: number;
  vectorizedLoops?: { depth: number; width: number; by: string }[];
}
type Report = { functions: { name: string; scops: ScopFields[] }[] };

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** tsopt (with its post pipeline) on `bitcode`, then llc and the link; the executable and the report. */
function pipe(bitcode: Buffer, name: string, extra: readonly string[] = [], libs: readonly string[] = ['-lm']): { exe: string; report: Report } {
  const report = path.join(work, `${name}.report`);
  const optimized = runOk('node', [tsopt, '--verify-each', `--report=${report}`, ...extra], bitcode);
  return { exe: link(optimized, name, libs), report: JSON.parse(fs.readFileSync(report, 'utf8')) as Report };
}

function link(bitcode: Buffer, name: string, libs: readonly string[] = ['-lm']): string {
  const obj = path.join(work, `${name}.o`);
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], bitcode);
  const exe = path.join(work, name);
  runOk('clang-14', [obj, '-o', exe, ...libs]);
  return exe;
}

function scopsOf(report: Report, fn: string): ScopFields[] {
  return report.functions.find((f) => f.name === fn)?.scops ?? [];
}

function rerolled(report: Report, fn: string): number {
  return scopsOf(report, fn).reduce((n, s) => n + (s.rerolledLoops ?? 0), 0);
}

/** Each size argument of a kernel set to small trip counts: all equal, then rotated so that they differ. */
function smallSizes(count: number): string[][] {
  const out: string[][] = [];
  for (let k = 0; k < TRIP_COUNTS.length; k++) out.push(Array.from({ length: count }, (_, j) => TRIP_COUNTS[(k + j) % TRIP_COUNTS.length]!));
  return out;
}

/** The stores in the fast path's blocks (`tsopt.scopN.*`) of `fn`, in tsopt's output without the post pipeline. */
function fastPathStores(text: string, fn: string): number {
  const body = new RegExp(`define[^\\n]*@${fn}\\([\\s\\S]*?\\n}`).exec(text)?.[0] ?? '';
  let block = '';
  let stores = 0;
  for (const line of body.split('\n')) {
    const label = /^([\w.$-]+):/.exec(line);
    if (label) block = label[1]!;
    else if (/^\s+store /.test(line) && block.startsWith('tsopt.scop')) stores++;
  }
  return stores;
}

/**
 * `fn` of `bitcode` with the `nth` of its `count` matches of `pattern` replaced: that unrolled
 * copy differs from the remainder, so its pair keeps the unrolled form (`rolled` pairs are
 * left), and the pipe's program prints what the changed code prints for each of `runs`.
 */
function expectChangedCopyRefused(bitcode: Buffer, fn: string, change: { pattern: RegExp; replacement: string; nth: number; count: number }, rolled: number, runs: readonly string[][]): void {
  const text = disassemble(bitcode);
  const body = new RegExp(`define[^\\n]*@${fn}\\([\\s\\S]*?\\n}`).exec(text)![0];
  let seen = 0;
  const changed = body.replace(change.pattern, (m) => (++seen === change.nth ? change.replacement : m));
  expect(seen).toBe(change.count);
  const mutated = assemble(text.replace(body, changed));
  const { exe, report } = pipe(mutated, `${fn}-mutated`);
  expect(rerolled(report, fn)).toBe(rolled);
  expect(scopsOf(report, fn).every((s) => s.versioned)).toBe(true);
  const direct = link(mutated, `${fn}-mutated-direct`);
  for (const args of runs) expect(runKernel(exe, args)).toBe(runKernel(direct, args));
}

describe('PolyBench-style kernels: the pipe prints what clang -O3 prints at small trip counts', () => {
  const kernels = listKernels('polybench');
  let total = 0;
  for (const k of kernels) {
    test(k.name, () => {
      const { exe, report } = pipe(compileToIr(k.path, IR_FLAGS), k.name, [], k.libs);
      total += report.functions.reduce((n, f) => n + rerolled(report, f.name), 0);
      const reference = buildKernel(k.name, { flags: ['-O3', ...TARGET] });
      for (const args of [k.args, ...smallSizes(k.args.length)]) {
        const expected = run(reference, args);
        if (expected.status !== 0) continue; // a size the kernel's own main rejects
        expect(runKernel(exe, args)).toBe(expected.stdout.toString());
      }
    }, 300_000);
  }
  test('some of them ran rolled fast paths', () => {
    expect(total).toBeGreaterThan(0);
  });
});

describe('C99 VLA builds of the stencils, whose loops -O3 unrolls by 2: the pipe prints what clang -O3 prints', () => {
  // Their remainders are single blocks (jacobi-2d with VLA parameters ran 2x clang's instructions unrolled).
  for (const name of ['jacobi-2d', 'heat-3d', 'seidel-2d', 'gesummv']) {
    test(name, () => {
      const k = listKernels('polybench').find((x) => x.name === name)!;
      const { exe } = pipe(compileToIr(k.path, [...IR_FLAGS, '-DTSOPT_VLA']), `${name}-vla`, [], k.libs);
      const reference = buildKernel(name, { flags: ['-O3', ...TARGET], vla: true });
      for (const args of [k.args, ...smallSizes(k.args.length)]) {
        const expected = run(reference, args);
        if (expected.status !== 0) continue;
        expect(runKernel(exe, args)).toBe(expected.stdout.toString());
      }
    }, 300_000);
  }
});

describe('loop shapes of our kernels that are rolled (compiled for AVX2, not run)', () => {
  const rolledIn = (name: string, fn: string, defines: readonly string[] = []): number => {
    const bitcode = compileToIr(path.join(kernelsDir, `${name}.c`), ['-O3', '-march=x86-64-v3', '-fno-vectorize', '-fno-slp-vectorize', `-I${kernelsDir}`, ...defines]);
    return rerolled(pipe(bitcode, `${name}${defines.join('')}-count`).report, fn);
  };
  test('jacobi-1d: int bounds, the remainder starts at 4 * ((zext i32 (n - 1) - 1) / 4)', () => {
    expect(rolledIn('jacobi-1d', 'kernel_jacobi_1d')).toBe(2);
  });
  test('jacobi-2d and heat-3d with VLA parameters: remainders that are one block', () => {
    expect(rolledIn('jacobi-2d', 'kernel_jacobi_2d', ['-DTSOPT_VLA'])).toBe(2);
    expect(rolledIn('heat-3d', 'kernel_heat_3d', ['-DTSOPT_VLA'])).toBe(2);
  });
});

describe('jacobi-2d (VLA): a copy that differs from the remainder block keeps the unrolled form', () => {
  test('the changed nest stays unrolled, the other is rolled, and the results are the changed code\'s', () => {
    const k = listKernels('polybench').find((x) => x.name === 'jacobi-2d')!;
    const bitcode = compileToIr(k.path, [...IR_FLAGS, '-DTSOPT_VLA']);
    // Each nest's unrolled body scales by 0.2 twice, its remainder block once: change the first nest's second copy.
    const change = { pattern: /fmul double (%\d+), 2\.000000e-01/g, replacement: 'fmul double 3.000000e+00, 2.000000e-01', nth: 2, count: 6 };
    expectChangedCopyRefused(bitcode, 'kernel_jacobi_2d', change, 1, [k.args, ...smallSizes(k.args.length)]);
  });
});

describe('gemm: the unrolled j loops become rolled loops of the fast path', () => {
  // Only compiled, never run: the AVX2 target whatever the CPU.
  const bitcode = compileToIr(path.join(kernelsDir, 'gemm.c'), ['-O3', '-march=x86-64-v3', '-fno-vectorize', '-fno-slp-vectorize', `-I${kernelsDir}`]);

  test('fewer statement copies in the fast path; the slow path unchanged', () => {
    const rolled = runOk('node', [tsopt, '--verify-each', '--no-post', '-S'], bitcode).toString();
    const unrolled = runOk('node', [tsopt, '--verify-each', '--no-post', '-S', '--reroll=false'], bitcode).toString();
    expect(fastPathStores(rolled, 'kernel_gemm')).toBeLessThan(fastPathStores(unrolled, 'kernel_gemm'));
    const slowStores = (text: string) => (new RegExp('define[^\\n]*@kernel_gemm\\([\\s\\S]*?\\n}').exec(text)?.[0].match(/^\s+store /gm) ?? []).length - fastPathStores(text, 'kernel_gemm');
    expect(slowStores(rolled)).toBe(slowStores(unrolled));
  });

  test('the report counts the rolled loops and the loop vectorizer takes the innermost one', () => {
    const { report } = pipe(bitcode, 'gemm-report');
    const [scop] = scopsOf(report, 'kernel_gemm');
    expect(scop?.versioned).toBe(true);
    expect(scop?.rerolledLoops).toBe(3);
    expect(scop?.vectorizedLoops).toEqual(expect.arrayContaining([expect.objectContaining({ depth: 2, by: 'loop-vectorize' })]));
    const { report: without } = pipe(bitcode, 'gemm-unrolled', ['--reroll=false']);
    expect(scopsOf(without, 'kernel_gemm')[0]?.rerolledLoops).toBe(0);
  });
});

describe('row loops unrolled by a pragma (test/reroll/fixtures/reroll-1d.c)', () => {
  const bitcode = compileToIr(fixture, ['-O3', '-fno-vectorize', '-fno-slp-vectorize']);
  const reference = path.join(work, 'reroll-1d.ref');
  runOk('clang-14', ['-O3', fixture, '-o', reference]);
  const sizes = [...TRIP_COUNTS, '8', '9', '17', '33'];

  test('rolled, right for every row length, and the distance-4 loop is not marked parallel', () => {
    const { exe, report } = pipe(bitcode, 'reroll-1d');
    expect(rerolled(report, 'kernel_axpy')).toBe(1);
    expect(rerolled(report, 'kernel_distance4')).toBe(1);
    expect(scopsOf(report, 'kernel_distance4').map((s) => s.fastPathParallelLoops)).toEqual([0]);
    for (const n of sizes) for (const m of ['1', '3']) expect(runKernel(exe, [n, m])).toBe(runKernel(reference, [n, m]));
  });

  test('a copy that differs from the remainder keeps the unrolled form', () => {
    // The unrolled body calls fmuladd four times, the remainder once: change the third copy only.
    const change = { pattern: /call double @llvm\.fmuladd\.f64\(double %2,/g, replacement: 'call double @llvm.fmuladd.f64(double 2.500000e-01,', nth: 3, count: 5 };
    expectChangedCopyRefused(bitcode, 'kernel_axpy', change, 0, sizes.map((n) => [n, '3']));
  });
});


// `tsopt --report`: per versioned SCoP, whether opt-14's post pipeline vectorized its fast path
// (passes/vectorized.ts), through the command on fixtures/vectorized.c (axpy vectorizes, a
// recurrence cannot, a four-iteration loop is vectorized and then unrolled away) and on gemm.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliReport } from '../../cli/pipeline-report';
import { compileKernelToIr } from '../support/kernels';
import { compileToIr, tempDir } from '../support/tools';
import { tsopt } from './tsopt-binary';

const dir = tempDir('tsopt-vectorized-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
// As tscc compiles: the vectorizers and the unroller are left to tsopt's post pipeline.
const deferred = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-fno-unroll-loops'];

function report(input: Buffer, extra: readonly string[] = []): { report: CliReport; output: string } {
  const file = path.join(dir, 'report.json');
  const r = tsopt(['-S', `--report=${file}`, ...extra], input);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return { report: JSON.parse(fs.readFileSync(file, 'utf8')) as CliReport, output: r.stdout.toString() };
}

function scopOf(r: CliReport, fn: string): Record<string, unknown> {
  const scops = r.functions.find((f) => f.name === fn)!.scops;
  expect(scops).toHaveLength(1);
  return scops[0]!;
}

describe('fixtures/vectorized.c', () => {
  const input = compileToIr(path.join(__dirname, 'fixtures', 'vectorized.c'), deferred);
  let run: { report: CliReport; output: string };
  beforeAll(() => {
    // Every fast path stays, so that the scalar one's loop IDs can be read in the output.
    run = report(input, ['--keep-unprofitable']);
  });

  test("axpy's fast-path loop is vectorized by the loop vectorizer", () => {
    const s = scopOf(run.report, 'axpy');
    expect(s).toMatchObject({ versioned: true, vectorized: true, vectorizedLoops: [{ depth: 0, width: 2, by: 'loop-vectorize' }], vectorWidths: [2] });
  });

  test("the recurrence's fast path stays scalar", () => {
    expect(scopOf(run.report, 'recurrence')).toMatchObject({ versioned: true, vectorized: false, vectorizedLoops: [], vectorWidths: [] });
  });

  test('a vectorized loop that was then fully unrolled: no loop left, its vector accesses still count', () => {
    expect(scopOf(run.report, 'four')).toMatchObject({ versioned: true, vectorized: true, vectorizedLoops: [], vectorWidths: [2] });
  });

  test("by default the recurrence's fast path, which pays nothing, is dropped after the post pipeline (passes/profitability.ts), and so is axpy's, which opt vectorizes as it vectorizes the original code", () => {
    const { report: r, output } = report(input);
    expect(scopOf(r, 'recurrence')).toMatchObject({ versioned: true, vectorized: false, fastPathKept: false });
    // The original loop is vectorized too, under opt's own run-time check: the fast path's check gains nothing.
    expect(scopOf(r, 'axpy')).toMatchObject({ vectorized: true, fastPathKept: false, profitability: expect.stringMatching(/^opt vectorized both paths, the fast path's only gain is its check/) });
    expect(output).not.toContain('!"tsopt axpy axpy:');
    expect(output).not.toContain('!"tsopt recurrence recurrence:');
  });

  test("opt keeps the fast-path marker in the loop IDs it rewrites (llvm.loop.isvectorized, unroll hints)", () => {
    const ids = new Map([...run.output.matchAll(/^(![0-9]+) = (.*)$/gm)].map((m) => [m[1]!, m[2]!] as const));
    const refsOf = (body: string) => [...body.matchAll(/![0-9]+/g)].map((m) => ids.get(m[0]) ?? '');
    const loopIds = [...run.output.matchAll(/, !llvm\.loop (![0-9]+)/g)].map((m) => refsOf(ids.get(m[1]!) ?? '').join(' '));
    const marked = loopIds.filter((body) => body.includes('!"tsopt.loop", !"tsopt axpy axpy:'));
    // The vector loop and the scalar remainder both carry it, with the vectorizer's flag.
    expect(marked.length).toBeGreaterThanOrEqual(2);
    for (const body of marked) expect(body).toContain('!"llvm.loop.isvectorized", i32 1');
    expect(loopIds.some((body) => body.includes('!"tsopt.loop", !"tsopt recurrence recurrence:'))).toBe(true);
  });

  test('the text report prints the fields; without the post pipeline there are none', () => {
    const r = tsopt(['-o', '/dev/null', '--report=-', '--report-format=text'], input);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/ {2}recurrence, SCoP at recurrence:%\d+:\n(?: {4}.*\n)*? {4}vectorized: no\n {4}vectorized loops: \(none\)\n/);
    const off = report(input, ['--no-post']);
    expect(scopOf(off.report, 'axpy')).not.toHaveProperty('vectorized');
  });
});

test("gemm through the bare pipe: the fast path's loops are vectorized (SLP or loop vectorizer)", () => {
  const { report: r } = report(compileKernelToIr('gemm', ['-O3', '-fno-vectorize', '-fno-slp-vectorize']));
  const s = scopOf(r, 'kernel_gemm');
  expect(s.vectorized).toBe(true);
  expect((s.vectorizedLoops as unknown[]).length).toBeGreaterThan(0);
  expect(s.vectorWidths).toContain(2);
});

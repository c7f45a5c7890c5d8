// Versioning end to end: our kernels through the pipe
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize -emit-llvm | tsopt --passes=versioning --verify-each
//     | llc-14 -O3 -relocation-model=pic | clang-14 (link)
// print what clang-14 -O3 prints; adversarial drivers (fixtures/) make the check fail and
// --rtc-stats says which part failed; the fast path of gemm is vectorized by the post pipeline.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildKernel, listKernels, runKernel } from '../support/kernels';
import { unexpectedlyNotVersioned } from './expected-versioned';
import { compileToIr, kernelsDir, repoRoot, runOk, tempDir } from '../support/tools';

const tsopt = path.join(repoRoot, 'bin', 'tsopt.js');
const fixtures = path.join(__dirname, 'fixtures');
const work = tempDir('tsopt-versioning-');
const IR_FLAGS = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', `-I${kernelsDir}`];

/** The per-SCoP fields of `tsopt --report` (JSON) that versioning publishes. */
interface ScopFields {
  location: string;
  versioned?: boolean;
  runtimeCheck: string;
  notVersioned?: string;
  runtimeCheckParts?: { label: string; c: string }[];
  islOperations?: number;
}
type Report = { functions: { name: string; scops: ScopFields[] }[]; pipeline: { passes: { pass: string; ms: number }[] } };

function scopsOf(report: Report, fn: string): ScopFields[] {
  return report.functions.find((f) => f.name === fn)?.scops ?? [];
}

/** Builds `source` through tsopt; returns the executable and tsopt's report. */
function pipeBuild(source: string, name: string, extra: readonly string[] = [], libs: readonly string[] = ['-lm'], irFlags: readonly string[] = IR_FLAGS): { exe: string; report: Report } {
  const bitcode = compileToIr(source, [...irFlags]);
  const report = path.join(work, `${name}.report`);
  // --keep-unprofitable: these tests are about the fast paths' results, so every one stays
  // (by default the post pipeline's output keeps only those that pay: test/tscc/profitability.test.ts).
  const optimized = runOk('node', [tsopt, '--passes=versioning', '--verify-each', '--keep-unprofitable', `--report=${report}`, ...extra], bitcode);
  const obj = path.join(work, `${name}.o`);
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], optimized);
  const exe = path.join(work, name);
  runOk('clang-14', [obj, '-o', exe, ...libs]);
  return { exe, report: JSON.parse(fs.readFileSync(report, 'utf8')) as Report };
}

function referenceBuild(source: string, name: string): string {
  const exe = path.join(work, `${name}.ref`);
  runOk('clang-14', ['-O3', `-I${kernelsDir}`, source, '-o', exe, '-lm']);
  return exe;
}

/** Runs `exe` with --rtc-stats output going to a file; returns [stdout, stats lines]. */
function runWithStats(exe: string): [string, string[]] {
  const stats = path.join(work, `${path.basename(exe)}.rtc`);
  fs.rmSync(stats, { force: true });
  const r = spawnSync(exe, [], { env: { ...process.env, TSOPT_RTC_STATS: stats } });
  if (r.status !== 0) throw new Error(`${exe} failed: ${r.stderr.toString()}`);
  const out = r.stdout.toString();
  return [out, fs.readFileSync(stats, 'utf8').trim().split('\n')];
}

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe('every kernel prints what clang -O3 prints (default and alternative sizes)', () => {
  for (const k of listKernels()) {
    test(k.name, () => {
      const { exe, report } = pipeBuild(k.path, k.name, [], k.libs);
      const reference = buildKernel(k.name, { flags: ['-O3'] });
      for (const args of [k.args, k.altArgs]) expect(runKernel(exe, args)).toBe(runKernel(reference, args));
      // Every SCoP is either versioned under a check or left alone with a reason.
      for (const scop of report.functions.flatMap((f) => f.scops)) {
        if (scop.versioned === true) expect(scop.runtimeCheck).toMatch(/\S/);
        else expect(scop.notVersioned).toMatch(/\S/);
      }
      // Every SCoP of kernel_* and main gets a fast path, but the known gaps (expected-versioned.ts).
      expect(unexpectedlyNotVersioned(k.name, report.functions.flatMap((f) => f.scops))).toEqual([]);
    }, 300_000);
  }
});

describe('when the check fails the original code runs', () => {
  const cases: [string, RegExp, string, RegExp][] = [
    // C and A overlap: the alias check between them fails, the one between C and B holds.
    ['gemm-overlap', /kernel_gemm .*fast=0 slow=1 alias\(%5,%6\)-failed=1 alias\(%5,%7\)-failed=0/, 'kernel_gemm', /^\(\(char \*\)%5 \+ 8 \* /],
    // o1 + s1 > n1: the delinearization's validity condition fails.
    ['set-subarray-break', /set_subarray .*fast=0 slow=1 delinearization-failed=1/, 'set_subarray', /^\(p_0 >= p_6 \+ p_3/],
    // unsigned bounds above INT_MAX: the model's reading of them as signed values fails.
    ['copy-span-edge', /kernel_copy_span .*fast=0 slow=1 unsigned-failed=1 alias\(%2,%3\)-failed=0/, 'kernel_copy_span', /^\(p_0 >= 0/],
  ];
  test.each(cases)('%s', (name, stats, fn, check) => {
    const source = path.join(fixtures, `${name}.c`);
    const { exe, report } = pipeBuild(source, name, ['--rtc-stats']);
    expect(scopsOf(report, fn).map((x) => x.runtimeCheck)).toContainEqual(expect.stringMatching(check));
    const [out, lines] = runWithStats(exe);
    expect(out).toBe(runOk(referenceBuild(source, name), []).toString());
    expect(lines.join('\n')).toMatch(stats);
  }, 300_000);

  test('gemm with separate arrays takes the fast path, and --rtc-stats goes to stderr without TSOPT_RTC_STATS', () => {
    const k = listKernels().find((x) => x.name === 'gemm')!;
    const { exe } = pipeBuild(k.path, 'gemm-stats', ['--rtc-stats']);
    const [, lines] = runWithStats(exe);
    expect(lines).toContainEqual(expect.stringMatching(/^tsopt-rtc: kernel_gemm kernel_gemm:%10 scop0: fast=1 slow=0 alias\(%5,%6\)-failed=0 alias\(%5,%7\)-failed=0$/));
    const env = { ...process.env };
    delete env.TSOPT_RTC_STATS;
    const r = spawnSync(exe, [], { env });
    expect(r.status).toBe(0);
    expect(r.stderr.toString()).toMatch(/^tsopt-rtc: kernel_gemm .* fast=1 slow=0 /m);
  }, 300_000);
});

describe('values live after a SCoP reach the code after it from either path (fixtures/live-outs.c)', () => {
  // Reductions returned through exit PHIs with an edge from before the SCoP, a PHI after the
  // SCoP fed by two of them, the last value of a doubly nested loop, counters live after a
  // nest, a row sum escaping from an inner loop; main runs each with zero, one and many
  // iterations. Before live-out merging none of the kernels' SCoPs was versioned.
  const kernels = ['sum', 'dot_or', 'last_of', 'tri_count', 'stride_end', 'row_sums'];
  test.each([['-O3', IR_FLAGS], ['-O3 -g', [...IR_FLAGS, '-g']]])('%s: every SCoP versioned, each fast path ran, output as clang -O3', (label, flags) => {
    const source = path.join(fixtures, 'live-outs.c');
    const name = `live-outs${label.includes('-g') ? '-g' : ''}`;
    const { exe, report } = pipeBuild(source, name, ['--rtc-stats'], ['-lm'], flags);
    const scops = report.functions.flatMap((f) => f.scops.map((x) => ({ function: f.name, ...x })));
    expect(scops.filter((x) => x.versioned !== true)).toEqual([]);
    expect(new Set(scops.map((x) => x.function))).toEqual(new Set([...kernels, 'main']));
    const [out, lines] = runWithStats(exe);
    expect(out).toBe(runOk(referenceBuild(source, name), []).toString());
    for (const fn of kernels) expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^tsopt-rtc: ${fn} .* fast=[1-9]`)));
  }, 300_000);
});

test("opt-14 vectorizes gemm's fast path (vector types in kernel_gemm after the post pipeline)", () => {
  const k = listKernels().find((x) => x.name === 'gemm')!;
  const bitcode = compileToIr(k.path, IR_FLAGS);
  const text = runOk('node', [tsopt, '--passes=versioning', '-S'], bitcode).toString();
  const body = /define [^\n]*@kernel_gemm\([\s\S]*?\n}\n/.exec(text)![0];
  // Vector loads with alias scopes, and our scope domain in the module (opt's own loop
  // versioning adds scopes too, so the domain's name shows ours survived).
  expect(body).toMatch(/load <\d+ x double>, <\d+ x double>\* %\S+, align \d+(, !tbaa !\d+)?, !alias\.scope !\d+, !noalias !\d+/);
  expect(text).toMatch(/distinct !\{!\d+, !"tsopt kernel_gemm kernel_gemm:%10"\}/);
}, 300_000);

// Work counted in isl operations, not seconds (a loaded machine makes any time limit flaky).
test('parametric gemm: the model and versioning together cost each SCoP under 2M isl operations (606k for the kernel)', () => {
  const k = listKernels().find((x) => x.name === 'gemm')!;
  const bitcode = compileToIr(k.path, IR_FLAGS);
  const report = path.join(work, 'timing.json');
  runOk('node', [tsopt, '--passes=versioning', '--no-post', `--report=${report}`, '-o', path.join(work, 'timing.bc')], bitcode);
  const r = JSON.parse(fs.readFileSync(report, 'utf8')) as Report;
  const scops = r.functions.flatMap((f) => f.scops);
  expect(scops.map((s) => s.versioned)).toEqual([true, true, true]);
  for (const s of scops) expect(s.islOperations).toBeLessThan(2_000_000);
}, 300_000);

test('past its isl quota a SCoP keeps no fast path, and the remark says why', () => {
  const k = listKernels().find((x) => x.name === 'gemm')!;
  const bitcode = compileToIr(k.path, IR_FLAGS);
  const report = path.join(work, 'quota.json');
  const text = runOk('node', [tsopt, '--passes=versioning', '--no-post', '-S', '--codegen-max-operations=1', `--report=${report}`], bitcode).toString();
  const r = JSON.parse(fs.readFileSync(report, 'utf8')) as Report;
  expect(scopsOf(r, 'kernel_gemm')[0]).toMatchObject({ versioned: false, notVersioned: expect.stringMatching(/^isl exceeded its quota of 1 operations/) });
  expect(text).not.toMatch(/tsopt\.scop\d+\.check:/);
}, 300_000);

test('modulo-2^32 subscripts (robustness seed 12): the model and versioning finish within 20 s, the SCoP modelled', () => {
  const bitcode = compileToIr(path.join(fixtures, 'wrapping-offsets.c'), IR_FLAGS);
  const report = path.join(work, 'wrapping.json');
  // Killed at 20 s (before isl's dataflow was kept off the modulo relations it ran for minutes).
  const run = spawnSync('node', [tsopt, '--passes=versioning', '--verify-each', '--no-post', `--report=${report}`, '-o', path.join(work, 'wrapping.bc')], { input: bitcode, timeout: 20_000 });
  expect({ status: run.status, signal: run.signal }).toEqual({ status: 0, signal: null });
  const r = JSON.parse(fs.readFileSync(report, 'utf8')) as Report;
  // Modelled (not dropped past the quota); no alias check bounds the over-approximated read of C.
  expect(scopsOf(r, 'kernel')).toEqual([expect.objectContaining({ location: 'kernel:%7', versioned: false, notVersioned: expect.stringMatching(/no alias check possible/) })]);
}, 300_000);

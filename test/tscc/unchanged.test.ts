// Where tsopt leaves nothing of its own in a file, tscc's object is clang -O3's (cli/outcome.ts).
// Our jacobi-1d in its VLA build is versioned, opt vectorizes both copies alike, and the
// profitability rule drops the fast path: tsopt says `unchanged`, and tscc's object is byte for
// byte clang -O3's. Before, it was the post pipeline's output of the original loops, with
// innermost loops aligned to 64 bytes and main's initialization loop compiled otherwise (PolyBench's
// VLA jacobi-1d, the same loops, read 0.72x clang -O3). A kept fast path (jacobi-2d), a fast path
// kept by --keep-unprofitable, and a rewrite by a pass other than versioning (sink-stores on
// tsvc-branch-store) say `changed`, and tscc's object of jacobi-2d is its own.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFER_UNROLLING } from '../../cli/tscc';
import { findKernel } from '../support/kernels';
import { compileToIr, kernelsDir, repoRoot, run, runOk, tempDir } from '../support/tools';
import { tsccOnPath } from './support';

const tsopt = path.join(repoRoot, 'bin', 'tsopt.js');
const work = tempDir('tsopt-unchanged-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const FLAGS = ['-O3', '-march=native'];

/** tsopt's outcome for tscc's front-end IR of `kernel` (with `defines`) and tsopt's `extra` flags. */
function outcome(kernel: string, defines: readonly string[], extra: readonly string[] = []): string {
  const ir = compileToIr(findKernel(kernel).path, [...FLAGS, '-fno-vectorize', '-fno-slp-vectorize', ...DEFER_UNROLLING, `-I${kernelsDir}`, ...defines]);
  const file = path.join(work, `${kernel}-${extra.length}.outcome`);
  runOk('node', [tsopt, '--verify-each', '-o', path.join(work, `${kernel}.bc`), `--outcome=${file}`, ...extra], ir);
  return fs.readFileSync(file, 'utf8').trim();
}

test('tsopt --outcome: unchanged where every fast path was dropped; changed where one is kept or a pass rewrote the code', () => {
  expect(outcome('jacobi-1d', ['-DTSOPT_VLA'])).toBe('unchanged');
  expect(outcome('jacobi-1d', ['-DTSOPT_VLA'], ['--keep-unprofitable'])).toBe('changed');
  expect(outcome('jacobi-2d', ['-DTSOPT_VLA'])).toBe('changed');
  expect(outcome('tsvc-branch-store', [])).toBe('changed');
}, 300_000);

test('--skip-unchanged-output where every fast path was dropped: opt runs to decide, then no print, no clean-up, no output', () => {
  const ir = compileToIr(findKernel('jacobi-1d').path, [...FLAGS, '-fno-vectorize', '-fno-slp-vectorize', ...DEFER_UNROLLING, `-I${kernelsDir}`, '-DTSOPT_VLA']);
  const out = path.join(work, 'jacobi-1d-skip.bc');
  const file = path.join(work, 'jacobi-1d-skip.outcome');
  const r = run('node', [tsopt, '--verify-each', '-o', out, `--outcome=${file}`, '--skip-unchanged-output', '--log-level=debug', '--log-format=json'], ir);
  expect(r.status).toBe(0);
  const stages = r.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => String((JSON.parse(l) as { msg: string }).msg));
  expect(stages).toEqual(expect.arrayContaining(['post pipeline (opt-14)', 'post pipeline output parsed', 'profitability: decided']));
  expect(stages).not.toContain('decided module printed');
  expect(stages).not.toContain('profitability: clean-up (opt-14)');
  expect(fs.readFileSync(file, 'utf8').trim()).toBe('unchanged');
  expect(fs.existsSync(out)).toBe(false);
}, 300_000);

/** The object of VLA `kernel` compiled by `cc` (a command's words) at -O3 -march=native. */
function object(cc: readonly string[], kernel: string, env: NodeJS.ProcessEnv): Buffer {
  const out = path.join(work, `${kernel}-${path.basename(cc[cc.length - 1]!)}.o`);
  const r = spawnSync(cc[0]!, [...cc.slice(1), ...FLAGS, '-DTSOPT_VLA', `-I${kernelsDir}`, '-c', findKernel(kernel).path, '-o', out], { env, encoding: 'utf8' });
  expect({ kernel, cc, status: r.status, stderr: r.stderr }).toEqual({ kernel, cc, status: 0, stderr: '' });
  return fs.readFileSync(out);
}

test("tscc's object of VLA jacobi-1d (no fast path kept) is clang -O3's byte for byte; jacobi-2d's (fast paths kept) is not", () => {
  const { env } = tsccOnPath();
  const tscc = [process.execPath, path.join(repoRoot, 'bin', 'tscc.js')];
  expect(object(tscc, 'jacobi-1d', env).equals(object(['clang-14'], 'jacobi-1d', env))).toBe(true);
  expect(object(tscc, 'jacobi-2d', env).equals(object(['clang-14'], 'jacobi-2d', env))).toBe(false);
}, 300_000);

// A loop no SCoP covers (its exit reads memory): tsopt runs and changes nothing.
const WARNS = `int first_run(const int *a, int n) {
  int unused;
  int s = 0;
  for (int i = 0; i < n && a[i] != 0; i++) s += a[i];
  return s;
}
`;

test("a source tsopt leaves unchanged gets clang's object and its warning once, not again from the second clang run; tsopt made no output for it", () => {
  const stages = path.join(work, 'warns-stages.jsonl');
  const { env } = tsccOnPath({ TSCC_TIME_STAGES: stages });
  const src = path.join(work, 'warns.c');
  fs.writeFileSync(src, WARNS);
  const compile = (cc: readonly string[], out: string) => {
    const r = spawnSync(cc[0]!, [...cc.slice(1), ...FLAGS, '-Wall', '-c', src, '-o', out], { env, encoding: 'utf8' });
    expect(r.status).toBe(0);
    return { object: fs.readFileSync(out), warnings: r.stderr.match(/warning: unused variable 'unused'/g) ?? [] };
  };
  const ours = compile([process.execPath, path.join(repoRoot, 'bin', 'tscc.js')], path.join(work, 'warns-tscc.o'));
  const clang = compile(['clang-14'], path.join(work, 'warns-clang.o'));
  expect(clang.warnings).toHaveLength(1);
  expect(ours.warnings).toHaveLength(1);
  expect(ours.object.equals(clang.object)).toBe(true);
  // tscc passes --skip-unchanged-output: tsopt knew before opt that nothing changed, so neither
  // printed the module nor ran opt's post pipeline; the object is clang-14's second run's.
  const names = (JSON.parse(fs.readFileSync(stages, 'utf8').trim()) as { stages: { stage: string }[] }).stages.map((x) => x.stage);
  expect(names).toEqual(expect.arrayContaining(['tsopt: parsed', 'tsopt: versioning', 'unchanged: clang-14 -O3']));
  expect(names).not.toContain('tsopt: post pipeline (opt-14)');
  expect(names).not.toContain('tsopt: printed');
  expect(names).not.toContain('back end (clang-14)');
}, 300_000);

// --skip-unchanged-output (tscc passes it with --outcome): an `unchanged` run writes no output and
// skips what only makes it: the decided module's print and clean-up where every fast path was
// dropped (VLA jacobi-1d), the post pipeline where nothing was versioned (WARNS). A `changed` run
// writes the output it writes without the flag. Which stages ran, from tsopt's debug records.
function skipRun(name: string, ir: Buffer, skip: boolean): { outcome: string; output?: Buffer; stages: string[] } {
  const out = path.join(work, `${name}-skip${skip}.bc`);
  const file = path.join(work, `${name}-skip${skip}.outcome`);
  const r = spawnSync('node', [tsopt, '--verify-each', '-o', out, `--outcome=${file}`, ...(skip ? ['--skip-unchanged-output'] : []), '--log-level=debug', '--log-format=json'], { input: ir });
  expect(r.status).toBe(0);
  const stages = r.stderr.toString().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { pass?: string; msg?: string; cpuMs?: number }).filter((x) => x.cpuMs !== undefined).map((x) => String(x.pass ?? x.msg));
  return { outcome: fs.readFileSync(file, 'utf8').trim(), output: fs.existsSync(out) ? fs.readFileSync(out) : undefined, stages };
}

test('--skip-unchanged-output: no output and none of its steps where the outcome is unchanged; the same output where it is changed', () => {
  const vla = compileToIr(findKernel('jacobi-1d').path, [...FLAGS, '-fno-vectorize', '-fno-slp-vectorize', ...DEFER_UNROLLING, `-I${kernelsDir}`, '-DTSOPT_VLA']);
  const dropped = skipRun('jacobi-1d', vla, true);
  expect(dropped).toMatchObject({ outcome: 'unchanged', output: undefined });
  expect(dropped.stages).toContain('profitability: decided');
  expect(dropped.stages.filter((s) => /decided module printed|clean-up|encoded/.test(s))).toEqual([]);
  expect(skipRun('jacobi-1d', vla, false).stages).toContain('decided module printed');

  const warns = path.join(work, 'warns-skip.c');
  fs.writeFileSync(warns, WARNS);
  const warnsIr = compileToIr(warns, [...FLAGS, '-fno-vectorize', '-fno-slp-vectorize', ...DEFER_UNROLLING]);
  const none = skipRun('warns', warnsIr, true);
  expect(none).toMatchObject({ outcome: 'unchanged', output: undefined });
  expect(none.stages.filter((s) => /post pipeline|printed|encoded/.test(s))).toEqual([]);
  expect(skipRun('warns', warnsIr, false).stages).toContain('post pipeline (opt-14)');

  const kept = compileToIr(findKernel('jacobi-2d').path, [...FLAGS, '-fno-vectorize', '-fno-slp-vectorize', ...DEFER_UNROLLING, `-I${kernelsDir}`, '-DTSOPT_VLA']);
  const changed = skipRun('jacobi-2d', kept, true);
  expect(changed.outcome).toBe('changed');
  expect(changed.output?.equals(skipRun('jacobi-2d', kept, false).output!)).toBe(true);
}, 300_000);

// A module no pass changes (cli/run.ts): tsopt hands its input to opt-14's post pipeline as it
// was read, without printing and encoding its own copy (issue 16); a module it changes goes to
// opt as tsopt printed it, not encoded first. Checked through tsopt's debug
// records (which stages ran, never their times), against the old way (tsopt's own print and
// encode, `--no-post`, then the same post pipeline: the same IR and the same object), and end to
// end against clang -O3.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { POST_PIPELINE } from '../../cli/post-pipeline';
import { compileToIr, disassemble, runOk, tempDir } from '../support/tools';
import { tsopt } from './tsopt-binary';
import { optTargetArgs } from '../../ir/opt-target';

const FRONT_END = ['-O3', '-fno-vectorize', '-fno-slp-vectorize'];

// Loops, but no SCoP: every loop calls a function tsopt knows nothing of.
const NO_SCOP = `#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10;
  double *a = malloc(sizeof(double) * n);
  srand(7);
  for (int i = 0; i < n; i++) a[i] = (rand() % 100) * 0.5 + i;
  for (int i = 0; i < n; i++) printf("%d %.3f\\n", i, a[i]);
  free(a);
  return 0;
}
`;

// A loop nest tsopt versions.
const SCOP = `#include <stdio.h>
void scale(int n, double *restrict a, const double *restrict b) {
  for (int i = 0; i < n; i++) a[i] = 2.0 * b[i] + a[i];
}
int main(void) {
  static double a[1000], b[1000];
  for (int i = 0; i < 1000; i++) { a[i] = i; b[i] = 1000 - i; }
  scale(1000, a, b);
  double s = 0;
  for (int i = 0; i < 1000; i++) s += a[i];
  printf("%.1f\\n", s);
  return 0;
}
`;

const dir = tempDir('tsopt-unchanged-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** tsopt's stage names (its debug records' messages) and its output for the C source. */
function throughTsopt(name: string, source: string, extra: readonly string[] = []): { stages: string[]; out: Buffer; ir: Buffer } {
  const c = path.join(dir, `${name}.c`);
  fs.writeFileSync(c, source);
  const ir = compileToIr(c, FRONT_END, true);
  const out = path.join(dir, `${name}.bc`);
  const r = tsopt(['-', '-o', out, '--log-level=debug', '--log-format=json', '--verify-each', ...extra], ir);
  expect({ status: r.status, stderr: r.stderr.split('\n').filter((l) => l !== '' && !l.includes('"level":20')) }).toEqual({ status: 0, stderr: [] });
  const stages = r.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => String((JSON.parse(l) as { msg: string }).msg));
  return { stages, out: fs.readFileSync(out), ir };
}

/** The old way: tsopt's own print and encode (no post pipeline), then the post pipeline for clang's target (ir/opt-target.ts). */
function printedThenOpt(ir: Buffer, extra: readonly string[] = []): Buffer {
  const noPost = tsopt(['-', '-o', '-', '--no-post', '--verify-each', ...extra], ir);
  expect(noPost.status).toBe(0);
  const target = optTargetArgs(ir.toString());
  expect(target).toEqual(['-relocation-model=pic']);
  return runOk('opt-14', [...target, `-passes=${POST_PIPELINE}`, '-', '-o', '-'], noPost.stdout);
}

const withoutModuleId = (text: string): string => text.replace(/^; ModuleID = .*\n/, '');

/** The object tscc's back end makes of `bitcode`: clang-14's code generation alone. */
function objectOf(name: string, bitcode: Buffer): Buffer {
  const obj = path.join(dir, `${name}.o`);
  runOk('clang-14', ['-O3', '-Xclang', '-disable-llvm-passes', '-c', '-x', 'ir', '-', '-o', obj], bitcode);
  return fs.readFileSync(obj);
}

function runsAsClang(name: string, source: string, bitcode: Buffer, args: string[]): void {
  const bc = path.join(dir, `${name}-run.bc`);
  fs.writeFileSync(bc, bitcode);
  runOk('clang-14', ['-O3', bc, '-o', path.join(dir, `${name}-tsopt`)]);
  runOk('clang-14', ['-O3', '-x', 'c', '-', '-o', path.join(dir, `${name}-clang`)], source);
  expect(runOk(path.join(dir, `${name}-tsopt`), args).toString()).toBe(runOk(path.join(dir, `${name}-clang`), args).toString());
}

test('a module with loops but no SCoP goes to opt as read: not printed, not encoded, the same code and object', () => {
  const { stages, out, ir } = throughTsopt('no-scop', NO_SCOP);
  expect(stages).toContain('parsed');
  expect(stages).toContain('post pipeline (opt-14)');
  expect(stages).not.toContain('printed');
  expect(stages).not.toContain('verified and encoded');
  // The code is the same; the bitcode differs only in the use-list orders opt records for a
  // module it read as text, so the objects the back end makes of both are compared.
  const before = printedThenOpt(ir);
  expect(withoutModuleId(disassemble(out))).toBe(withoutModuleId(disassemble(before)));
  expect(objectOf('no-scop-now', out).equals(objectOf('no-scop-before', before))).toBe(true);
  runsAsClang('no-scop', NO_SCOP, out, ['7']);
}, 120_000);

test('a module tsopt versions is printed and goes to opt as text, not encoded first: the same object as the old way', () => {
  // --keep-unprofitable: no stage after opt, so tsopt's output is opt's of its printed text.
  const { stages, out, ir } = throughTsopt('scop', SCOP, ['--keep-unprofitable']);
  expect(stages).toContain('printed');
  expect(stages).toContain('post pipeline (opt-14)');
  expect(stages).not.toContain('verified and encoded');
  const before = printedThenOpt(ir, ['--keep-unprofitable']);
  expect(withoutModuleId(disassemble(out))).toBe(withoutModuleId(disassemble(before)));
  expect(objectOf('scop-now', out).equals(objectOf('scop-before', before))).toBe(true);
  runsAsClang('scop', SCOP, out, []);
}, 120_000);

test('after the profitability stage, the decided module is encoded only when no clean-up reads it', () => {
  const { stages, out } = throughTsopt('scop-decided', SCOP);
  expect(stages).toContain('profitability: decided');
  expect(stages).toContain('decided module printed');
  const encodes = stages.filter((s) => s === 'verified and encoded').length;
  expect(encodes).toBe(stages.includes('profitability: clean-up (opt-14)') ? 0 : 1);
  runsAsClang('scop-decided', SCOP, out, []);
}, 120_000);

test('--no-post: the module is still printed and encoded (there is no opt run to hand it to)', () => {
  const { stages } = throughTsopt('no-scop-no-post', NO_SCOP, ['--no-post']);
  expect(stages).toContain('printed');
  expect(stages).toContain('verified and encoded');
}, 120_000);

/** tsopt with `--outcome` into `name`'s files, the output file written beforehand as `stale`: its stages, outcome and what is left of the output. */
function withOutcome(name: string, source: string, extra: readonly string[], run = 'skip'): { stages: string[]; outcome: string; out: Buffer | undefined; stdout: Buffer } {
  const c = path.join(dir, `${name}.c`);
  fs.writeFileSync(c, source);
  const ir = compileToIr(c, FRONT_END, true);
  const out = path.join(dir, `${name}-${run}.out.bc`);
  const outcome = path.join(dir, `${name}-${run}.outcome`);
  fs.writeFileSync(out, 'stale');
  const r = tsopt(['-', '-o', out, `--outcome=${outcome}`, '--log-level=debug', '--log-format=json', '--verify-each', ...extra], ir);
  expect({ status: r.status, stderr: r.stderr.split('\n').filter((l) => l !== '' && !l.includes('"level":20')) }).toEqual({ status: 0, stderr: [] });
  const stages = r.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => String((JSON.parse(l) as { msg: string }).msg));
  return { stages, outcome: fs.readFileSync(outcome, 'utf8').trim(), out: fs.existsSync(out) ? fs.readFileSync(out) : undefined, stdout: r.stdout };
}

describe('--skip-unchanged-output (what tscc passes with --outcome)', () => {
  test('an unchanged module: no print, no post pipeline, no output, and the stale output file removed', () => {
    const skipped = withOutcome('no-scop-outcome', NO_SCOP, ['--skip-unchanged-output']);
    expect(skipped.outcome).toBe('unchanged');
    expect(skipped.stages).toContain('parsed');
    expect(skipped.stages).not.toContain('post pipeline (opt-14)');
    expect(skipped.stages).not.toContain('printed');
    expect(skipped.out).toBeUndefined();
    // Without the flag the output is written as before, with the same outcome.
    const written = withOutcome('no-scop-outcome', NO_SCOP, [], 'plain');
    expect(written.outcome).toBe('unchanged');
    expect(written.stages).toContain('post pipeline (opt-14)');
    expect(written.out?.subarray(0, 4).equals(Buffer.from('BC\xc0\xde', 'latin1'))).toBe(true);
  }, 120_000);

  test('a changed module: the same output as without the flag', () => {
    const skipping = withOutcome('scop-outcome', SCOP, ['--keep-unprofitable', '--skip-unchanged-output']);
    const plain = withOutcome('scop-outcome', SCOP, ['--keep-unprofitable'], 'plain');
    expect(skipping.outcome).toBe('changed');
    expect(skipping.stages).toContain('post pipeline (opt-14)');
    expect(skipping.out).toBeDefined();
    expect(skipping.out!.equals(plain.out!)).toBe(true);
  }, 120_000);

  test('with --report the post pipeline still runs for the report, and no output is written; on stdout nothing', () => {
    const report = path.join(dir, 'skip-report.json');
    const r = withOutcome('skip-report', NO_SCOP, ['--skip-unchanged-output', `--report=${report}`]);
    expect(r.outcome).toBe('unchanged');
    expect(r.stages).toContain('post pipeline (opt-14)');
    expect(r.out).toBeUndefined();
    expect(JSON.parse(fs.readFileSync(report, 'utf8'))).toHaveProperty('pipeline');
    const c = path.join(dir, 'skip-report.c');
    const toStdout = tsopt(['-', '-o', '-', `--outcome=${path.join(dir, 'stdout.outcome')}`, '--skip-unchanged-output'], compileToIr(c, FRONT_END, true));
    expect({ status: toStdout.status, stdout: toStdout.stdout.length, stderr: toStdout.stderr }).toEqual({ status: 0, stdout: 0, stderr: '' });
  }, 120_000);

  test('without --outcome it is refused in one line: nothing would say that no output was written', () => {
    const r = tsopt(['-', '-o', path.join(dir, 'never.bc'), '--skip-unchanged-output'], '');
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('tsopt: error: --skip-unchanged-output needs --outcome=FILE (it says whether an output was written)\n');
    expect(fs.existsSync(path.join(dir, 'never.bc'))).toBe(false);
  });
});

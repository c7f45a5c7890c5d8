// The profitability rule's last case (passes/profitability.ts, passes/register-gain.ts): a fast
// path opt vectorized in neither copy, whose check rules out aliasing, stays only where opt
// used that to keep values in registers: fewer loads and stores in its innermost loops for the
// same floating-point operations than in the original code's.
//   forward-subst.c (a triangular solve's shape): x[i] -= L[i][j] * x[j] keeps x[i] in memory in
//     both copies (x[i] and x[j] are one array), so the original code runs, without the check;
//   row-sums.c: y[i] += A[i][j] * x[j] keeps y[i] in a register in the fast path only: kept.
//   durbin-steps.c: opt vectorizes both copies alike and the check gains nothing else: the
//     original code runs, without the check (the case of both copies vectorized).
// Each program prints what clang -O3's build prints.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFER_UNROLLING } from '../../cli/tscc';
import { compileToIr, repoRoot, runOk, tempDir } from '../support/tools';

const tsopt = path.join(repoRoot, 'bin', 'tsopt.js');
const fixtures = path.join(__dirname, 'fixtures');
const work = tempDir('tsopt-register-gain-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface Scop { location: string; versioned?: boolean; vectorized?: boolean; fastPathKept?: boolean; profitability?: string }
type Report = { functions: { name: string; scops: Scop[] }[] };
const MARCH = '-march=haswell';

/** tscc's front end, tsopt with its post pipeline; the report, the IR text, and what the program prints next to clang -O3's build. */
function build(name: string, args: readonly string[], flags: readonly string[] = []): { report: Report; text: string; printed: string; reference: string } {
  const source = path.join(fixtures, `${name}.c`);
  const ir = compileToIr(source, ['-O3', MARCH, '-fno-vectorize', '-fno-slp-vectorize', ...DEFER_UNROLLING]);
  const reportFile = path.join(work, `${name}.json`);
  const text = runOk('node', [tsopt, '-S', '--verify-each', `--report=${reportFile}`, ...flags], ir).toString();
  const bitcode = runOk('node', [tsopt, '--verify-each', ...flags], ir);
  const obj = path.join(work, `${name}.o`);
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], bitcode);
  const exe = path.join(work, name);
  runOk('clang-14', [obj, '-o', exe, '-lm']);
  const ref = path.join(work, `${name}-clang`);
  runOk('clang-14', ['-O3', MARCH, source, '-o', ref, '-lm']);
  return {
    report: JSON.parse(fs.readFileSync(reportFile, 'utf8')) as Report,
    text,
    printed: runOk(exe, args).toString(),
    reference: runOk(ref, args).toString(),
  };
}

const scopOf = (r: Report, fn: string): Scop => {
  const found = r.functions.find((f) => f.name === fn)?.scops ?? [];
  expect(found).toHaveLength(1);
  return found[0]!;
};

test("forward substitution: the check rules out aliasing, but opt keeps x[i] in memory in both copies, so the original code runs, without the check", () => {
  // The row jam (transform/row-jam.ts) takes this shape by default, with 8 rows' chains at once
  // (test/row-jam); without it the fast path is the original order, which this rule judges.
  const { report, text, printed, reference } = build('forward-subst', ['57'], ['--row-jam=false']);
  const s = scopOf(report, 'forward_subst');
  expect(s).toMatchObject({ versioned: true, vectorized: false, fastPathKept: false });
  expect(s.profitability).toMatch(/^opt vectorized neither path, and though the check rules out aliasing \(alias\(.*opt kept no more values in registers in the fast path \(innermost loops: fast path (\d+) loads and stores for (\d+) floating-point operations, original code \1 loads and stores for \2 floating-point operations\)/);
  expect(text).not.toContain(`!"tsopt forward_subst ${s.location}"`);
  expect(printed).toBe(reference);
}, 300_000);

test('row sums: the fast path keeps y[i] in a register (fewer loads and stores per operation than the original code), and is kept', () => {
  const { report, text, printed, reference } = build('row-sums', ['23', '61']);
  const s = scopOf(report, 'row_sums');
  expect(s).toMatchObject({ versioned: true, vectorized: false, fastPathKept: true });
  const m = /^not vectorized, but the check rules out aliasing \(alias\(.*\(innermost loops: fast path (\d+) loads and stores for (\d+) floating-point operations, original code (\d+) loads and stores for (\d+) floating-point operations\)$/.exec(s.profitability ?? '');
  expect(m).not.toBeNull();
  const [fastMem, fastFp, slowMem, slowFp] = m!.slice(1).map(Number);
  expect(fastMem! * slowFp!).toBeLessThan(slowMem! * fastFp!);
  expect(text).toContain(`!"tsopt row_sums ${s.location}"`);
  expect(printed).toBe(reference);
}, 300_000);

test("durbin steps: opt vectorizes the z loop in both copies and the sum stays in memory order in both, so the fast path's check gains nothing and the original code runs, without the check", () => {
  const { report, text, printed, reference } = build('durbin-steps', ['45']);
  const s = scopOf(report, 'durbin_steps');
  expect(s).toMatchObject({ versioned: true, vectorized: true, fastPathKept: false });
  const m = /^opt vectorized both paths, the fast path's only gain is its check, .*\(innermost loops: fast path (\d+) loads and stores for (\d+) floating-point operations, (\d+) of \d+ loops in vector code, original code (\d+) loads and stores for (\d+) floating-point operations, (\d+) of \d+ loops in vector code\)/.exec(s.profitability ?? '');
  expect(m).not.toBeNull();
  const [fastMem, fastFp, fastVec, slowMem, slowFp, slowVec] = m!.slice(1).map(Number);
  // Both copies vectorize the same loop; the fast path's loads and stores per operation are within 1/20 of the original's.
  expect(fastVec).toBeGreaterThan(0);
  expect(fastVec).toBe(slowVec);
  expect(fastMem! * slowFp! * 20).toBeGreaterThanOrEqual(slowMem! * fastFp! * 19);
  expect(text).not.toContain(`!"tsopt durbin_steps ${s.location}"`);
  expect(printed).toBe(reference);
}, 300_000);

// The run-time check of a SCoP inside a loop it does not cover is computed in a noinline
// function of its own (codegen/versioning.ts, insideOuterLoop; --rtc-nested-check-functions):
// inline, opt's LICM hoists its parts out of that loop, where they hold registers across the
// whole loop (zlib's inflate_fast, whose window copies are such SCoPs). window-copy.c copies a
// few to MAXLEN bytes per command inside a decoding loop (`decode`), and once outside any loop
// (`copy_once`, whose check stays inline). Each build prints what clang -O3's build prints, for
// copies shorter than a vector and longer than several.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFER_UNROLLING } from '../../cli/tscc';
import { compileToIr, repoRoot, runOk, tempDir } from '../support/tools';

const tsopt = path.join(repoRoot, 'bin', 'tsopt.js');
const source = path.join(__dirname, 'fixtures', 'window-copy.c');
const work = tempDir('tsopt-nested-check-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface Scop { location: string; versioned?: boolean; fastPathKept?: boolean }
type Report = { functions: { name: string; scops: Scop[] }[] };
const MARCH = '-march=haswell';
const LENGTHS = ['1', '3', '17', '258', '1000'];

/** tsopt with its post pipeline on tscc's front-end IR: the report, the IR text, and what the program prints for each length. */
function build(tag: string, flags: readonly string[]): { report: Report; text: string; printed: string[] } {
  const ir = compileToIr(source, ['-O3', MARCH, '-fno-vectorize', '-fno-slp-vectorize', ...DEFER_UNROLLING]);
  const reportFile = path.join(work, `${tag}.json`);
  const text = runOk('node', [tsopt, '-S', '--verify-each', `--report=${reportFile}`, ...flags], ir).toString();
  const bitcode = runOk('node', [tsopt, '--verify-each', ...flags], ir);
  const obj = path.join(work, `${tag}.o`);
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], bitcode);
  const exe = path.join(work, tag);
  runOk('clang-14', [obj, '-o', exe]);
  return { report: JSON.parse(fs.readFileSync(reportFile, 'utf8')) as Report, text, printed: LENGTHS.map((n) => runOk(exe, [n]).toString()) };
}

/** The IR text of one function definition. */
function body(text: string, fn: string): string {
  const start = text.search(new RegExp(`^define [^\\n]*@${fn.replace(/\./g, '\\.')}\\(`, 'm'));
  expect(start).toBeGreaterThan(0);
  return text.slice(start, text.indexOf('\n}\n', start));
}

let reference: string[];
beforeAll(() => {
  const exe = path.join(work, 'clang');
  runOk('clang-14', ['-O3', MARCH, source, '-o', exe]);
  reference = LENGTHS.map((n) => runOk(exe, [n]).toString());
}, 120_000);

test('the copy inside the decoding loop keeps its fast path behind a call to its check function; the copy outside any loop keeps its check inline', () => {
  const { report, text, printed } = build('default', []);
  const scops = (fn: string) => report.functions.find((f) => f.name === fn)?.scops ?? [];
  expect(scops('decode')).toHaveLength(1);
  expect(scops('decode')[0]).toMatchObject({ versioned: true, fastPathKept: true });
  expect(scops('copy_once')).toHaveLength(1);
  expect(scops('copy_once')[0]).toMatchObject({ versioned: true, fastPathKept: true });
  // decode branches on the call; the function holds the check's 128-bit arithmetic.
  expect(body(text, 'decode')).toMatch(/%tsopt\.check\.ok = call i1 @tsopt\.check\.decode\.scop0\(.*\n\s*br i1 %tsopt\.check\.ok, label %tsopt\.scop0\.fast,/);
  expect(body(text, 'decode')).not.toContain('i128');
  expect(body(text, 'tsopt.check.decode.scop0')).toContain('i128');
  expect(text).toMatch(/define internal i1 @tsopt\.check\.decode\.scop0\([^)]*\) #(\d+)/);
  expect(text).not.toContain('@tsopt.check.copy_once');
  expect(body(text, 'copy_once')).toContain('i128');
  expect(printed).toEqual(reference);
}, 300_000);

test('--rtc-nested-check-functions=false keeps the check inline, and the program prints the same', () => {
  const { report, text, printed } = build('inline', ['--rtc-nested-check-functions=false']);
  expect(report.functions.find((f) => f.name === 'decode')?.scops[0]).toMatchObject({ versioned: true, fastPathKept: true });
  expect(text).not.toContain('@tsopt.check.');
  expect(body(text, 'decode')).toContain('i128');
  expect(printed).toEqual(reference);
}, 300_000);

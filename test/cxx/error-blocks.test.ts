// C++ kernels of our own with error paths (issue 22): each is built as
//   clang++-14 -O3 -fno-vectorize -fno-slp-vectorize -emit-llvm | tsopt --passes=versioning
//     --verify-each --rtc-stats | llc-14 -O3 | clang++-14 (link)
// and must print (and exit with) what clang++-14 -O3's build prints, on inputs that keep off the
// error path (the fast path runs, per --rtc-stats) and on inputs that take it (the original code
// runs and throws or aborts as clang's build does).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compileToIr, repoRoot, run, runOk, tempDir } from '../support/tools';

const fixtures = path.join(__dirname, 'fixtures');
const work = tempDir('tsopt-cxx-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface ReportScop { location: string; statements: number; runtimeCheck: string; errorBlocks?: string[]; versioned?: boolean }
interface Report { functions: { name: string; scops: ReportScop[] }[]; pipeline: { stats: Record<string, number> } }

interface Built { exe: string; reference: string; report: Report }

function build(name: string): Built {
  const source = path.join(fixtures, `${name}.cpp`);
  const bitcode = compileToIr(source, ['-O3', '-fno-vectorize', '-fno-slp-vectorize']);
  const reportFile = path.join(work, `${name}.report.json`);
  const optimized = runOk('node', [path.join(repoRoot, 'bin', 'tsopt.js'), '--passes=versioning', '--verify-each', '--rtc-stats', `--report=${reportFile}`], bitcode);
  const obj = path.join(work, `${name}.o`);
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], optimized);
  const exe = path.join(work, name);
  runOk('clang++-14', [obj, '-o', exe]);
  const reference = path.join(work, `${name}.ref`);
  runOk('clang++-14', ['-O3', source, '-o', reference]);
  return { exe, reference, report: JSON.parse(fs.readFileSync(reportFile, 'utf8')) as Report };
}

/** Runs both builds on `args`: same stdout, stderr and exit; returns the rtc-stats lines of `fn`. */
function runBoth(b: Built, args: string[], fn: string): string[] {
  const stats = path.join(work, 'rtc.txt');
  fs.rmSync(stats, { force: true });
  const ours = spawnSync(b.exe, args, { env: { ...process.env, TSOPT_RTC_STATS: stats } });
  const theirs = run(b.reference, args);
  expect(ours.stdout.toString()).toBe(theirs.stdout.toString());
  expect(ours.stderr.toString()).toBe(theirs.stderr);
  expect([ours.status, ours.signal]).toEqual([theirs.status, theirs.signal]);
  const text = fs.existsSync(stats) ? fs.readFileSync(stats, 'utf8') : '';
  return text.split('\n').filter((l) => l.startsWith(`tsopt-rtc: ${fn} `));
}

function kernelScop(b: Built, fn: string): ReportScop {
  const scops = b.report.functions.find((f) => f.name === fn)?.scops ?? [];
  expect(scops).toHaveLength(1);
  return scops[0]!;
}

test('an accessor that throws on a bad index: fast path for good indices, the same exception from the original code for a bad one', () => {
  const fn = '_Z4axpy3VecS_dl';
  const b = build('throwing-accessor');
  const scop = kernelScop(b, fn);
  expect(scop.versioned).toBe(true);
  expect(scop.errorBlocks).toHaveLength(2);
  for (const e of scop.errorBlocks!) expect(e).toMatch(/\(throw\) from %/);
  // Good indices: every call of axpy takes the fast path.
  const good = runBoth(b, ['1000'], fn);
  expect(good).toHaveLength(1);
  expect(good[0]).toMatch(/ fast=3 slow=0 error-block-failed=0 /);
  // n past the vectors' size: the check's error-block part fails, the original code throws.
  const bad = runBoth(b, ['1000', '500'], fn);
  expect(run(b.reference, ['1000', '500']).stdout.toString()).toContain('caught: Vec::at: bad index');
  expect(bad[0]).toMatch(/ fast=0 slow=1 error-block-failed=1 /);
}, 120_000);

test('a loop with an early abort() path: fast path below the limit, the same message and abort past it', () => {
  const fn = '_Z10scale_rowsPdPKdlll';
  const b = build('early-abort');
  const scops = b.report.functions.find((f) => f.name === fn)!.scops;
  // The row loop with its inner loop (another SCoP covers the m <= 0 case, without statements).
  const nest = scops.find((s) => s.errorBlocks !== undefined && s.statements > 0)!;
  expect(nest.versioned).toBe(true);
  expect(nest.errorBlocks!.every((e) => /\(abort\) from %/.test(e))).toBe(true);
  const good = runBoth(b, ['200'], fn).filter((l) => l.includes(` ${nest.location} `));
  expect(good).toHaveLength(1);
  expect(good[0]).toMatch(/ fast=3 slow=0 /);
  // limit 150 < n: clang's build prints the row and aborts (SIGABRT) before writing row 150.
  expect(run(b.reference, ['200', '150']).signal).toBe('SIGABRT');
  runBoth(b, ['200', '150'], fn);
}, 120_000);

test('std::sqrt of values that can be negative: a statement like any other, errno as clang -O3 leaves it', () => {
  const fn = '_Z5rootsPdPKddl';
  const b = build('negative-sqrt');
  expect(kernelScop(b, fn).versioned).toBe(true);
  expect(runBoth(b, ['1000', '0'], fn)[0]).toMatch(/ fast=1 slow=0 /);
  // Shifted by 0.5, about half the arguments are negative: NaNs and errno EDOM in both builds.
  expect(runBoth(b, ['1000', '0.5'], fn)[0]).toMatch(/ fast=1 slow=0 /);
  expect(run(b.reference, ['1000', '0.5']).stdout.toString()).toMatch(/^errno=Numerical argument out of domain nans=[1-9]/);
}, 120_000);

test('a checked accessor -O3 leaves out of line (it prints and throws, as uBLAS\'s checked builds): inlined before detection, its loops are SCoPs with the throws assumed away', () => {
  const source = path.join(fixtures, 'checked-printing-accessor.cpp');
  const bitcode = compileToIr(source, ['-O3', '-fno-vectorize', '-fno-slp-vectorize']);
  // clang -O3 calls the accessor in the loops (the premise of the test) ...
  expect(runOk('llvm-dis-14', ['-o', '-'], bitcode).toString()).toMatch(/call .*@_ZN5ArrayixEm\(/);
  // ... and without the inlining the calls keep the loops out of every SCoP.
  const detection = (flags: string[]) => runOk('sh', ['-c', `node ${path.join(repoRoot, 'bin', 'tsopt.js')} '--passes=print<scop-detection>' ${flags.join(' ')} --no-post -o /dev/null 2>&1`], bitcode).toString();
  expect(detection(['--inline-checked-accessors=false'])).toMatch(/reject function-call at _Z5scaleR5ArrayS0_dm:%[0-9]+: call to @_ZN5ArrayixEm/);
  const fns = ['_Z5scaleR5ArrayS0_dm', '_Z6smoothR5ArrayS0_m'];
  const b = build('checked-printing-accessor');
  // The report's statistics count the accessors inlined (Array::operator[]).
  expect(b.report.pipeline.stats['inline-checked-accessors.inlined']).toBe(1);
  for (const fn of fns) {
    const scop = kernelScop(b, fn);
    expect(scop.versioned).toBe(true);
    // Each inlined check throws from an error block of its own (scale: y[i] and x[i]; smooth: four).
    expect(scop.errorBlocks!.length).toBeGreaterThanOrEqual(2);
    for (const e of scop.errorBlocks!) expect(e).toMatch(/\(throw\) from %/);
  }
  // Good indices (and a size past n): every call takes the fast path.
  for (const args of [['1000'], ['1000', '1001']]) {
    for (const fn of fns) expect(runBoth(b, args, fn)[0]).toMatch(/ fast=3 slow=0 error-block-failed=0 /);
  }
  // n past the arrays' size: the check's error-block part fails, and the original code prints the
  // accessor's message and throws bad_index at the same element as clang -O3's build.
  const reference = run(b.reference, ['1000', '900']);
  expect(reference.stdout.toString()).toContain('caught: bad index');
  expect(reference.stderr.toString()).toContain('Check failed in file');
  expect(runBoth(b, ['1000', '900'], fns[0]!)[0]).toMatch(/ fast=0 slow=1 error-block-failed=1 /);
  // A size past 2^63 (negative read as signed): the unsigned check `i < size` cannot be read as a
  // signed one, so the original code runs (and throws nowhere, as in clang's build).
  expect(runBoth(b, ['5', '18446744073709551615'], fns[0]!)[0]).toMatch(/ fast=0 slow=3 error-block-failed=3 /);
}, 180_000);

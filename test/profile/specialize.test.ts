// Profile-driven parameter specialization (issue #19), end to end on our own kernels whose only
// obstacle is a parameter: tsopt --profile-generate → plain clang → run on one input (the
// profile) → tsopt --profile-use --verify-each → run on that input and on others the dispatch
// must send to the general code. Every run prints what clang -O3's build prints. Three of the
// kernels (upsample, periodic, triangle) are regions SCoP detection rejects without the
// profile; their specialized copies must become SCoPs whose fast path runs. Then the
// profile's failure modes: missing, corrupt, truncated, stale (another version of the kernel)
// and mismatched (another program's) profiles are one warning and an unspecialized build.
// The kernels' builds run in parallel, once, before the tests (beforeAll).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compileToIr, repoRoot, run, runOk, tempDir, type ToolResult } from '../support/tools';
import { inParallel, runAsync, tsopt, tsoptAsync } from '../cli/tsopt-binary';

const fixtures = path.join(repoRoot, 'test', 'profile', 'fixtures');
const work = tempDir('tsopt-profile-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
// Generous: the builds run three at a time and take minutes on a loaded machine (no test times anything).
jest.setTimeout(2_400_000);

const CFLAGS = ['-O3', '-fno-vectorize', '-fno-slp-vectorize'];

interface Kernel {
  readonly name: string;
  readonly fn: string;
  /** Arguments of the profiling run; the specialized version must serve them. */
  readonly profiled: readonly string[];
  /** Arguments with other parameter values: the dispatch falls back. */
  readonly others: readonly (readonly string[])[];
  /** SCoP detection rejects the kernel's region without the profile (a parameter is its only obstacle). */
  readonly rejected?: true;
  /** A SCoP whose delinearization's run-time check fails for the profiled values: without the profile the original code runs. */
  readonly delinearizationFails?: true;
}

const kernels: readonly Kernel[] = [
  { name: 'strided', fn: 'scale_strided', profiled: ['300', '4', '3'], others: [['300', '3', '2'], ['97', '5', '1']] },
  { name: 'product-bound', fn: 'axpy_nm', profiled: ['30', '40', '3'], others: [['31', '7', '2']] },
  { name: 'conv', fn: 'conv2d', profiled: ['40', '3', '2'], others: [['40', '5', '1'], ['33', '3', '1']] },
  { name: 'linear3d', fn: 'smooth3d', profiled: ['12', '10', '9', '2'], others: [['7', '11', '13', '1']] },
  { name: 'upsample', fn: 'upsample', profiled: ['600', '4', '3'], others: [['600', '3', '2'], ['97', '4', '1']], rejected: true },
  { name: 'periodic', fn: 'periodic', profiled: ['600', '8', '3'], others: [['600', '5', '2'], ['97', '8', '1']], rejected: true },
  { name: 'triangle', fn: 'triangle', profiled: ['40', '2', '3'], others: [['40', '3', '2'], ['17', '2', '1']], rejected: true },
  { name: 'lag3d', fn: 'lag3d', profiled: ['12', '10', '9', '9', '2'], others: [['12', '10', '9', '1', '2'], ['7', '11', '13', '13', '1']], delinearizationFails: true },
];

interface Built {
  readonly exe: string;
  readonly stderr: string;
  readonly stats: Map<string, number>;
}

function parseBuild(exe: string, r: ToolResult, flags: readonly string[]): Built {
  if (r.status !== 0) throw new Error(`tsopt ${flags.join(' ')} failed: ${r.stderr}`);
  const stats = new Map<string, number>();
  for (const m of r.stderr.matchAll(/tsopt: stat: (\S+) = (\d+)/g)) stats.set(m[1]!, Number(m[2]));
  return { exe, stderr: r.stderr.replace(/tsopt: stat: .*\n/g, ''), stats };
}

function build(name: string, bitcode: string, flags: readonly string[]): Built {
  const out = path.join(work, `${name}.out.bc`);
  const args = [bitcode, '--verify-each', '--stats', '-o', out, ...flags];
  const built = parseBuild(path.join(work, name), tsopt(args), flags);
  runOk('clang-14', [out, '-o', built.exe, '-lm']);
  return built;
}

async function buildAsync(name: string, bitcode: string, flags: readonly string[]): Promise<Built> {
  const out = path.join(work, `${name}.out.bc`);
  const args = [bitcode, '--verify-each', '--stats', '-o', out, ...flags];
  const built = parseBuild(path.join(work, name), await tsoptAsync(args), flags);
  await checked('clang-14', [out, '-o', built.exe, '-lm']);
  return built;
}

async function checked(cmd: string, args: readonly string[]): Promise<Buffer> {
  const r = await runAsync(cmd, args);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

function runWith(exe: string, args: readonly string[], profile?: string): string {
  return runFull(exe, args, profile).stdout;
}

function runFull(exe: string, args: readonly string[], profile?: string): { stdout: string; stderr: string } {
  const env = profile ? { ...process.env, TSOPT_PROFILE_FILE: profile } : process.env;
  const r = require('node:child_process').spawnSync(exe, args, { env });
  if (r.status !== 0) throw new Error(`${exe} ${args.join(' ')} failed: ${r.stderr}`);
  return { stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

interface Prepared {
  readonly bitcode: string;
  readonly reference: string;
  readonly profile: string;
  /** What the instrumented build printed on the profiled input (clang's output is expected). */
  readonly generatedOutput: string;
  readonly instrumented: number | undefined;
  /** Built with the profile (and --rtc-stats, whose counts go to stderr), its --report parsed. */
  readonly used: Built;
  readonly report: string;
  /** Built without the profile (with --rtc-stats), its --report parsed. */
  readonly plain: Built;
  readonly plainReport: { functions: { name: string; scops: { location: string; delinearization?: string }[]; rejected: { location: string; cause: string }[] }[] };
}

const prepared = new Map<string, Prepared>();

/** Per kernel: its bitcode, clang -O3's executable, a profile from its `profiled` run, and the builds with and without it. */
async function prepare(k: Kernel): Promise<Prepared> {
  const source = path.join(fixtures, `${k.name}.c`);
  const bitcode = path.join(work, `${k.name}.bc`);
  const reference = path.join(work, `${k.name}.ref`);
  await Promise.all([
    checked('clang-14', [...CFLAGS, '-emit-llvm', '-c', source, '-o', bitcode]),
    checked('clang-14', ['-O3', source, '-o', reference, '-lm']),
  ]);
  const profile = path.join(work, `${k.name}.profile.json`);
  const reportFile = path.join(work, `${k.name}.report.json`);
  const plainReportFile = path.join(work, `${k.name}.plain.report.json`);
  const [generated, plain] = await Promise.all([
    buildAsync(`${k.name}.gen`, bitcode, ['--profile-generate']),
    buildAsync(`${k.name}.plain`, bitcode, [`--report=${plainReportFile}`, '--rtc-stats']),
  ]);
  // The instrumented program appends its tables to the profile.
  const generatedOutput = runWith(generated.exe, k.profiled, profile);
  const used = await buildAsync(`${k.name}.use`, bitcode, [`--profile-use=${profile}`, '--rtc-stats', `--report=${reportFile}`]);
  return { bitcode, reference, profile, generatedOutput, instrumented: generated.stats.get('profile-generate.instrumented-regions'), used, report: JSON.stringify(JSON.parse(fs.readFileSync(reportFile, 'utf8'))), plain, plainReport: JSON.parse(fs.readFileSync(plainReportFile, 'utf8')) };
}

function preparedFor(k: Kernel): Prepared {
  const p = prepared.get(k.name);
  if (!p) throw new Error(`${k.name} was not prepared`);
  return p;
}

beforeAll(async () => {
  const all = await inParallel(kernels, 3, prepare);
  kernels.forEach((k, i) => prepared.set(k.name, all[i]!));
});

describe.each(kernels)('$name', (k) => {
  test('the instrumented build prints what clang -O3\'s does; the profile records the kernel\'s parameters with their values', () => {
    const { profile, reference, generatedOutput, instrumented } = preparedFor(k);
    expect(instrumented).toBeGreaterThanOrEqual(1);
    expect(generatedOutput).toBe(runWith(reference, k.profiled));
    const lines = fs.readFileSync(profile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const mine = lines.filter((l) => l.function === k.fn);
    expect(mine.length).toBeGreaterThanOrEqual(1);
    for (const l of mine) {
      expect(l.entries).toBe(Number(k.profiled.at(-1)));
      expect(l.other).toBe(0);
      // One tuple of values per run of the kernel, every entry counted in it.
      expect(l.top.filter((s: [number, string[]]) => s[0] > 0)).toHaveLength(1);
    }
    // The kernels the profile must turn into SCoPs are profiled as rejected regions, the others as SCoPs.
    expect(mine.map((l) => l.kind)).toContain(k.rejected ? 'rejected' : 'scop');
    if (k.rejected) expect(mine.map((l) => l.kind)).not.toContain('scop');
  });

  test('specialized for the profiled values; outputs equal clang -O3\'s on the profiled input and on others (the dispatch falls back)', () => {
    const { reference, used, plain, report } = preparedFor(k);
    expect(used.stderr).toBe('');
    expect(used.stats.get('profile-use.specialized-regions')).toBeGreaterThanOrEqual(1);
    expect(report).toMatch(/"specializations":\[\{"values":/);
    const dispatch = (stderr: string) => stderr.split('\n').find((l) => l.startsWith(`tsopt-rtc: ${k.fn} `) && l.includes(' dispatch: '));
    for (const args of [k.profiled, ...k.others]) {
      const expected = runWith(reference, args);
      const r = runFull(used.exe, args);
      expect(r.stdout).toBe(expected);
      expect(runWith(plain.exe, args)).toBe(expected);
      // The profiled input runs the copy every time; the others (another parameter value) never.
      const reps = Number(args.at(-1));
      expect(dispatch(r.stderr)).toMatch(args === k.profiled ? new RegExp(` spec0=${reps} general=0$`) : new RegExp(` spec0=0 general=${reps}$`));
    }
  });

  if (k.rejected) {
    test('rejected without the profile; with it, the copy is a SCoP whose fast path runs', () => {
      const { used, plainReport, profile } = preparedFor(k);
      // The profiled region is among those the build without the profile reports rejected, for a non-affine subscript or bound.
      const line = fs.readFileSync(profile, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).find((l) => l.function === k.fn);
      const fn = plainReport.functions.find((f) => f.name === k.fn)!;
      expect(fn.rejected.filter((r) => r.location === line.location).map((r) => r.cause)).toEqual(expect.arrayContaining([expect.stringMatching(/^non-affine-(access|loop-bound)$/)]));
      expect(fn.scops.map((x) => x.location)).not.toContain(line.location);
      const r = runFull(used.exe, k.profiled);
      const reps = Number(k.profiled.at(-1));
      expect(r.stderr).toMatch(new RegExp(`tsopt-rtc: ${k.fn} ${k.fn}:%\\S*spec0\\S* scop\\d+: fast=${reps} slow=0`));
    });
  }

  if (k.delinearizationFails) {
    test('without the profile the delinearization\'s check fails on every input and the original code runs; with it the copy is affine and its fast path runs', () => {
      const { used, plain, plainReport, profile } = preparedFor(k);
      const line = fs.readFileSync(profile, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).find((l) => l.function === k.fn);
      // A SCoP without the profile, versioned under a delinearization condition that is not always true.
      const scop = plainReport.functions.find((f) => f.name === k.fn)!.scops.find((s) => s.location === line.location)!;
      expect(scop.delinearization).toBeDefined();
      expect(scop.delinearization).not.toBe('1');
      const general = (stderr: string) => stderr.split('\n').find((l) => l.startsWith(`tsopt-rtc: ${k.fn} ${line.location} scop`));
      for (const args of [k.profiled, ...k.others]) {
        const reps = Number(args.at(-1));
        const withoutProfile = runFull(plain.exe, args).stderr;
        expect(general(withoutProfile)).toMatch(new RegExp(` fast=0 slow=${reps} delinearization-failed=${reps}$`));
      }
      // With the profile: the profiled input runs the copy's fast path, whose check has no delinearization part.
      const reps = Number(k.profiled.at(-1));
      const r = runFull(used.exe, k.profiled);
      const copy = r.stderr.split('\n').find((l) => new RegExp(`^tsopt-rtc: ${k.fn} ${k.fn}:%\\S*spec0\\S* scop\\d+: `).test(l));
      expect(copy).toMatch(new RegExp(` fast=${reps} slow=0$`));
      expect(general(r.stderr)).toMatch(/ fast=0 slow=0 delinearization-failed=0$/);
      // Another input falls back to the general code, whose check fails again.
      const other = k.others[0]!;
      expect(general(runFull(used.exe, other).stderr)).toMatch(new RegExp(` fast=0 slow=${other.at(-1)} delinearization-failed=${other.at(-1)}$`));
    });
  }
});

describe('profiles that cannot be used: one warning, no specialization, the right output', () => {
  const k = kernels[0]!;
  // Each case: how the bad profile is made from a good one, and the warning's reason.
  const cases: readonly [string, (profile: string) => string, RegExp][] = [
    ['missing', () => path.join(work, 'no-such-profile.json'), /not used \(no such file\)/],
    ['corrupt', (p) => write('corrupt', fs.readFileSync(p, 'utf8').replace(/"entries":\d+/, '"entries":"x"')), /not used \(line 1: a record lacks its counts\)/],
    ['corrupt counts (they do not add up)', (p) => write('counts', fs.readFileSync(p, 'utf8').replace(/"entries":(\d+)/, (_, n) => `"entries":${Number(n) + 1}`)), /not used \(line 1: a record's counts do not add up\)/],
    ['corrupt slot (a value is not an integer)', (p) => write('slot', fs.readFileSync(p, 'utf8').replace(/"top":\[\[(\d+),\["\d+"/, '"top":[[$1,["4x"')), /not used \(line 1: a record has a malformed slot\)/],
    ['truncated', (p) => write('truncated', fs.readFileSync(p, 'utf8').slice(0, -40)), /not used \(line \d+: a line is not JSON \(truncated\?\)\)/],
    ['empty', () => write('empty', ''), /not used \(it is empty\)/],
    ['not ours', () => write('not-ours', '{"hello": 1}\n'), /not used \(line 1: a line is not a tsopt profile record of format \d+\)/],
    ['stale (the function changed)', (p) => write('stale', fs.readFileSync(p, 'utf8').replace(/"fingerprint":"[0-9a-f]+"/g, '"fingerprint":"0000000000000000"')), /is stale for .*scale_strided/],
    // Another program's profile: its `main` reads as this program's `main` changed since.
    ['mismatched (another program\'s)', () => preparedFor(kernels[1]!).profile, /is stale for main \(the function changed since it was taken\)/],
    ['mismatched (functions this module lacks)', (p) => write('elsewhere', fs.readFileSync(p, 'utf8').replace(/"function":"(\w+)"/g, '"function":"elsewhere_$1"')), /matches no region of this module/],
  ];
  function write(name: string, text: string): string {
    const f = path.join(work, `${name}.profile.json`);
    fs.writeFileSync(f, text);
    return f;
  }
  // Built in parallel, once the kernels are prepared.
  const builds = new Map<string, Built>();
  beforeAll(async () => {
    const { bitcode, profile } = preparedFor(k);
    const done = await inParallel(cases, 3, ([what, make]) => buildAsync(`${k.name}.bad.${cases.findIndex((c) => c[0] === what)}`, bitcode, [`--profile-use=${make(profile)}`]));
    cases.forEach(([what], i) => builds.set(what, done[i]!));
  });
  test.each(cases)('%s', (what, _make, why) => {
    const { reference } = preparedFor(k);
    const used = builds.get(what)!;
    const warnings = used.stderr.trim().split('\n');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^tsopt: warning: profile .* (not used|stale|matches no region)/);
    expect(warnings[0]).toMatch(why);
    expect(used.stats.get('profile-use.specialized-regions')).toBeUndefined();
    expect(runWith(used.exe, k.profiled)).toBe(runWith(reference, k.profiled));
  });
});

describe('several processes exiting at once', () => {
  test('each appends whole lines; the merged counts are the sum of the runs', async () => {
    const k = kernels[1]!;
    const { bitcode } = preparedFor(k);
    const generated = build(`${k.name}.conc`, bitcode, ['--profile-generate=' + path.join(work, 'baked-in.json')]);
    const profile = path.join(work, 'concurrent.profile.json');
    const runs = Array.from({ length: 6 }, (_, i) => new Promise<void>((resolve, reject) => {
      const child = require('node:child_process').spawn(generated.exe, ['20', String(10 + (i % 2)), '2'], { env: { ...process.env, TSOPT_PROFILE_FILE: profile } });
      child.on('close', (status: number) => (status === 0 ? resolve() : reject(new Error(`run ${i} exited ${status}`))));
    }));
    await Promise.all(runs);
    const lines = fs.readFileSync(profile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const mine = lines.filter((l) => l.function === k.fn);
    expect(mine).toHaveLength(6);
    expect(fs.existsSync(path.join(work, 'baked-in.json'))).toBe(false);
    // The reader merges them: 12 entries, 6 with m=10 and 6 with m=11.
    const { readProfile } = require('../../passes/profile-data') as typeof import('../../passes/profile-data');
    const read = readProfile(profile);
    if (!read.ok) throw new Error(read.why);
    const region = [...read.regions.values()].find((r) => r.function === k.fn)!;
    expect(region.entries).toBe(12n);
    expect([...region.counts.values()].sort()).toEqual([6n, 6n]);
  });
});

test('an instrumented module links with a plain clang through the pipe', () => {
  const source = path.join(fixtures, 'strided.c');
  const ir = compileToIr(source, CFLAGS);
  const r = tsopt(['--profile-generate=' + path.join(work, 'pipe.json'), '-'], ir);
  expect(r.status).toBe(0);
  const exe = path.join(work, 'pipe-exe');
  const linked = run('clang-14', ['-x', 'ir', '-', '-o', exe], r.stdout);
  expect(linked.status).toBe(0);
  runOk(exe, ['50', '2', '1'], undefined, work);
  expect(fs.readFileSync(path.join(work, 'pipe.json'), 'utf8')).toMatch(/"function":"scale_strided"/);
});

test('tscc: -ftsopt-profile-generate, a run, -ftsopt-profile-use (separate compile and link, as make does)', () => {
  const tscc = path.join(repoRoot, 'bin', 'tscc.js');
  const source = path.join(fixtures, 'conv.c');
  const profile = path.join(work, 'tscc.profile.json');
  const step = (args: readonly string[]) => runOk(process.execPath, [tscc, ...args], undefined, work);
  step(['-O2', '-c', source, '-o', 'gen.o', `-ftsopt-profile-generate=${profile}`]);
  step(['gen.o', '-o', 'conv-gen', `-ftsopt-profile-generate=${profile}`]);
  const reference = preparedFor(kernels[2]!).reference;
  expect(runOk(path.join(work, 'conv-gen'), ['30', '3', '2']).toString()).toBe(runWith(reference, ['30', '3', '2']));
  expect(fs.readFileSync(profile, 'utf8')).toMatch(/"function":"conv2d".*"entries":2,"other":0,"top":\[\[2,\["3"/);
  const r = require('node:child_process').spawnSync(process.execPath, [tscc, '-O2', '-c', source, '-o', 'use.o', `-ftsopt-profile-use=${profile}`], { cwd: work, env: { ...process.env, TSOPT_FLAGS: '--stats' } });
  expect(r.status).toBe(0);
  expect(r.stderr.toString()).toMatch(/tsopt: stat: profile-use.specialized-regions = [1-9]/);
  expect(r.stderr.toString()).not.toMatch(/warn/);
  step(['use.o', '-o', 'conv-use']);
  for (const args of [['30', '3', '2'], ['30', '5', '1']]) expect(runOk(path.join(work, 'conv-use'), args).toString()).toBe(runWith(reference, args));
});

test('two programs appending to one profile file: each build finds its own lines, no warning', () => {
  const [a, b] = [preparedFor(kernels[0]!), preparedFor(kernels[1]!)];
  const shared = path.join(work, 'shared.profile.json');
  fs.writeFileSync(shared, fs.readFileSync(a.profile, 'utf8') + fs.readFileSync(b.profile, 'utf8'));
  for (const [k, p] of [[kernels[0]!, a], [kernels[1]!, b]] as const) {
    const used = build(`${k.name}.shared`, p.bitcode, [`--profile-use=${shared}`]);
    expect(used.stderr).toBe('');
    expect(used.stats.get('profile-use.specialized-regions')).toBeGreaterThanOrEqual(1);
    expect(runWith(used.exe, k.profiled)).toBe(runWith(p.reference, k.profiled));
  }
});

describe('choosing the hot values', () => {
  const { hotValues } = require('../../passes/profile-data') as typeof import('../../passes/profile-data');
  const region = (counts: Record<string, number>, other = 0) => {
    const entries = Object.values(counts).reduce((s, n) => s + n, other);
    return { function: 'f', fingerprint: 'x', region: 0, parameters: ['%n', '%m'], entries: BigInt(entries), other: BigInt(other), counts: new Map(Object.entries(counts).map(([k, n]) => [k, BigInt(n)])) };
  };
  test('the most frequent tuples, at most K, each with 5% of the entries', () => {
    const r = region({ '4,100': 90, '3,100': 6, '5,7': 4 });
    expect(hotValues(r, 2).map((h) => h.values)).toEqual([[4n, 100n], [3n, 100n]]);
    expect(hotValues(r, 1).map((h) => h.values)).toEqual([[4n, 100n]]);
    expect(hotValues(r, 3).map((h) => h.values)).toEqual([[4n, 100n], [3n, 100n]]);
    expect(hotValues(r, 0)).toEqual([]);
  });
  test('none when the chosen tuples cover less than half of the entries', () => {
    expect(hotValues(region({ '1,1': 20, '2,2': 20 }, 60), 2)).toEqual([]);
    expect(hotValues(region({ '1,1': 30, '2,2': 25 }, 45), 2)).toHaveLength(2);
  });
});

test('with -g, a copy\'s SCoP has a location of its own (its original\'s debug locations, `specK` added) and its own fast path', () => {
  const k = kernels[2]!;
  const source = path.join(fixtures, `${k.name}.c`);
  const bitcode = path.join(work, 'conv-g.bc');
  fs.writeFileSync(bitcode, compileToIr(source, ['-g', ...CFLAGS]));
  const generated = build('conv-g.gen', bitcode, ['--profile-generate']);
  const profile = path.join(work, 'conv-g.profile.json');
  const { reference } = preparedFor(k);
  expect(runWith(generated.exe, k.profiled, profile)).toBe(runWith(reference, k.profiled));
  const used = build('conv-g.use', bitcode, [`--profile-use=${profile}`, '--rtc-stats']);
  const r = require('node:child_process').spawnSync(used.exe, k.profiled);
  expect(r.stdout.toString()).toBe(runWith(reference, k.profiled));
  expect(r.stderr.toString()).toMatch(new RegExp(`tsopt-rtc: ${k.fn} \\S*conv\\.c:\\d+ spec0 scop\\d+: fast=[1-9]\\d* slow=0`));
});

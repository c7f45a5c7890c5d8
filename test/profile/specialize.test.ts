// Profile-driven parameter specialization (issue #19), end to end on our own kernels whose only
// obstacle is a parameter: tsopt --profile-generate → plain clang → run on one input (the
// profile) → tsopt --profile-use --verify-each → run on that input and on others the dispatch
// must send to the general code. Every run prints what clang -O3's build prints. Then the
// profile's failure modes: missing, corrupt, truncated, stale (another version of the kernel)
// and mismatched (another program's) profiles are one warning and an unspecialized build.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compileToIr, repoRoot, run, runOk, tempDir } from '../support/tools';
import { tsopt } from '../cli/tsopt-binary';

const fixtures = path.join(repoRoot, 'test', 'profile', 'fixtures');
const work = tempDir('tsopt-profile-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
jest.setTimeout(180_000);

const CFLAGS = ['-O3', '-fno-vectorize', '-fno-slp-vectorize'];

interface Kernel {
  readonly name: string;
  readonly fn: string;
  /** Arguments of the profiling run; the specialized version must serve them. */
  readonly profiled: readonly string[];
  /** Arguments with other parameter values: the dispatch falls back. */
  readonly others: readonly (readonly string[])[];
}

const kernels: readonly Kernel[] = [
  { name: 'strided', fn: 'scale_strided', profiled: ['300', '4', '3'], others: [['300', '3', '2'], ['97', '5', '1']] },
  { name: 'product-bound', fn: 'axpy_nm', profiled: ['30', '40', '3'], others: [['31', '7', '2']] },
  { name: 'conv', fn: 'conv2d', profiled: ['40', '3', '2'], others: [['40', '5', '1'], ['33', '3', '1']] },
  { name: 'linear3d', fn: 'smooth3d', profiled: ['12', '10', '9', '2'], others: [['7', '11', '13', '1']] },
];

function build(name: string, bitcode: string, flags: readonly string[]): { exe: string; stderr: string; stats: Map<string, number> } {
  const out = path.join(work, `${name}.out.bc`);
  const r = tsopt([bitcode, '--verify-each', '--stats', '-o', out, ...flags]);
  if (r.status !== 0) throw new Error(`tsopt ${flags.join(' ')} failed: ${r.stderr}`);
  const exe = path.join(work, name);
  runOk('clang-14', [out, '-o', exe, '-lm']);
  const stats = new Map<string, number>();
  for (const m of r.stderr.matchAll(/tsopt: stat: (\S+) = (\d+)/g)) stats.set(m[1]!, Number(m[2]));
  return { exe, stderr: r.stderr.replace(/tsopt: stat: .*\n/g, ''), stats };
}

function runWith(exe: string, args: readonly string[], profile?: string): string {
  const env = profile ? { ...process.env, TSOPT_PROFILE_FILE: profile } : process.env;
  const r = require('node:child_process').spawnSync(exe, args, { env });
  if (r.status !== 0) throw new Error(`${exe} ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout.toString();
}

const prepared = new Map<string, { bitcode: string; reference: string; profile: string }>();

/** The kernel's bitcode, clang -O3's executable, and a profile from its `profiled` run. */
function prepare(k: Kernel): { bitcode: string; reference: string; profile: string } {
  const known = prepared.get(k.name);
  if (known) return known;
  const source = path.join(fixtures, `${k.name}.c`);
  const bitcode = path.join(work, `${k.name}.bc`);
  fs.writeFileSync(bitcode, compileToIr(source, CFLAGS));
  const reference = path.join(work, `${k.name}.ref`);
  runOk('clang-14', ['-O3', source, '-o', reference, '-lm']);
  const generated = build(`${k.name}.gen`, bitcode, ['--profile-generate']);
  expect(generated.stats.get('profile-generate.instrumented-regions')).toBeGreaterThanOrEqual(1);
  const profile = path.join(work, `${k.name}.profile.json`);
  // The instrumented program prints what clang's does, and appends its tables to the profile.
  expect(runWith(generated.exe, k.profiled, profile)).toBe(runWith(reference, k.profiled));
  const result = { bitcode, reference, profile };
  prepared.set(k.name, result);
  return result;
}

describe.each(kernels)('$name', (k) => {
  test('the profile records the kernel\'s parameters with their values', () => {
    const { profile } = prepare(k);
    const lines = fs.readFileSync(profile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const mine = lines.filter((l) => l.function === k.fn);
    expect(mine.length).toBeGreaterThanOrEqual(1);
    for (const l of mine) {
      expect(l.entries).toBe(Number(k.profiled.at(-1)));
      expect(l.other).toBe(0);
      // One tuple of values per run of the kernel, every entry counted in it.
      expect(l.top.filter((s: [number, string[]]) => s[0] > 0)).toHaveLength(1);
    }
  });

  test('specialized for the profiled values; outputs equal clang -O3\'s on the profiled input and on others', () => {
    const { bitcode, reference, profile } = prepare(k);
    const used = build(`${k.name}.use`, bitcode, [`--profile-use=${profile}`, '--report=' + path.join(work, `${k.name}.report.json`)]);
    expect(used.stderr).toBe('');
    expect(used.stats.get('profile-use.specialized-regions')).toBeGreaterThanOrEqual(1);
    const report = JSON.parse(fs.readFileSync(path.join(work, `${k.name}.report.json`), 'utf8'));
    expect(JSON.stringify(report)).toMatch(/"specializations":\[\{"values":/);
    const plain = build(`${k.name}.plain`, bitcode, []);
    for (const args of [k.profiled, ...k.others]) {
      const expected = runWith(reference, args);
      expect(runWith(used.exe, args)).toBe(expected);
      expect(runWith(plain.exe, args)).toBe(expected);
    }
  });
});

describe('--rtc-stats', () => {
  test('counts the runs of each specialized version and of the general code', () => {
    const k = kernels[0]!;
    const { bitcode, profile } = prepare(k);
    const used = build(`${k.name}.rtc`, bitcode, [`--profile-use=${profile}`, '--rtc-stats']);
    const r = require('node:child_process').spawnSync(used.exe, ['300', '4', '3']);
    const r2 = require('node:child_process').spawnSync(used.exe, ['300', '3', '2']);
    const line = (s: string) => s.split('\n').find((l) => l.startsWith(`tsopt-rtc: ${k.fn} `) && l.includes(' dispatch: '));
    expect(line(r.stderr.toString())).toMatch(/ spec0=3 general=0$/);
    expect(line(r2.stderr.toString())).toMatch(/ spec0=0 general=2$/);
  });
});

describe('profiles that cannot be used: one warning, no specialization, the right output', () => {
  const k = kernels[0]!;
  const cases: readonly [string, (profile: string) => string][] = [
    ['missing', () => path.join(work, 'no-such-profile.json')],
    ['corrupt', (p) => write('corrupt', fs.readFileSync(p, 'utf8').replace(/"entries":\d+/, '"entries":"x"'))],
    ['truncated', (p) => write('truncated', fs.readFileSync(p, 'utf8').slice(0, -40))],
    ['empty', () => write('empty', '')],
    ['not ours', () => write('not-ours', '{"hello": 1}\n')],
    ['stale (the function changed)', (p) => write('stale', fs.readFileSync(p, 'utf8').replace(/"fingerprint":"[0-9a-f]+"/g, '"fingerprint":"0000000000000000"'))],
    ['mismatched (another program\'s)', () => prepare(kernels[1]!).profile],
  ];
  function write(name: string, text: string): string {
    const f = path.join(work, `${name}.profile.json`);
    fs.writeFileSync(f, text);
    return f;
  }
  test.each(cases)('%s', (what, make) => {
    const { bitcode, reference, profile } = prepare(k);
    const bad = make(profile);
    const used = build(`${k.name}.bad`, bitcode, [`--profile-use=${bad}`]);
    const warnings = used.stderr.trim().split('\n');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/profile .* (not used|stale|matches no region)/);
    expect(used.stats.get('profile-use.specialized-regions')).toBeUndefined();
    expect(runWith(used.exe, k.profiled)).toBe(runWith(reference, k.profiled));
    void what;
  });
});

describe('several processes exiting at once', () => {
  test('each appends whole lines; the merged counts are the sum of the runs', async () => {
    const k = kernels[1]!;
    const { bitcode } = prepare(k);
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
  const reference = prepare(kernels[2]!).reference;
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
  const [a, b] = [prepare(kernels[0]!), prepare(kernels[1]!)];
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
  const { reference } = prepare(k);
  expect(runWith(generated.exe, k.profiled, profile)).toBe(runWith(reference, k.profiled));
  const used = build('conv-g.use', bitcode, [`--profile-use=${profile}`, '--rtc-stats']);
  const r = require('node:child_process').spawnSync(used.exe, k.profiled);
  expect(r.stdout.toString()).toBe(runWith(reference, k.profiled));
  expect(r.stderr.toString()).toMatch(new RegExp(`tsopt-rtc: ${k.fn} \\S*conv\\.c:\\d+ spec0 scop\\d+: fast=[1-9]\\d* slow=0`));
});

// CI smoke run of the benchmark harness on two of our kernels at their test sizes, one repeat:
// the reports exist and hold every variant, every variant's output matched clang -O3's, and
// the run-time check's cost was measured (callgrind) where tsopt versioned the kernel.
// A deliberately broken variant (a forced include that rewrites printf) must show up as a mismatch.
// No test here asserts what the times are (a loaded machine can make any round go either way):
// what the sign test decides from given rounds is tested on synthetic rounds in noise.test.ts.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kernelsDir, repoRoot, tempDir } from '../support/tools';
import { hasPerfTaskClock } from '../../bench/harness';

const runJs = path.join(repoRoot, 'dist', 'bench', 'run.js');
const out = tempDir('tsopt-bench-smoke-');

interface Results {
  variants: { name: string }[];
  notes: string[];
  suites: {
    name: string;
    programs: {
      name: string;
      variants: Record<string, {
        status: string; detail?: string; times: number[]; median?: number; speedup?: number; vsPolly?: number; spread?: number[];
        roundsBelow?: number; pSlower?: number; verdict?: string; processMedian?: number;
        againstPolly?: { roundSpeedups: number[]; verdict?: string };
      }>;
      checkCost?: { scope: string; instructions: number; checkInstructions: number; checkCalls: number; share: number; versioned: boolean } | { error: string };
    }[];
  }[];
}

const VARIANTS = ['clang', 'polly', 'gcc-graphite', 'tscc', 'pipe'];

function bench(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [runJs, '--kernels-dir', kernelsDir, '--tiny', ...args], {
    encoding: 'utf8', env: { ...process.env, ...env },
  });
}

test('the harness checks, times and reports all five variants, and the check cost', () => {
  const dir = path.join(out, 'all');
  const r = bench(['--kernels', 'gemm,jacobi-1d', '--repeat', '1', '--out', dir, '--check-cost']);
  expect(r.stderr).toMatch(/\[kernels 1\/2\] gemm: building tscc/);
  expect(r.status).toBe(0);
  const results = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8')) as Results;
  expect(results.variants.map((v) => v.name)).toEqual(VARIANTS);
  expect(results.notes.filter((n) => /^load average/.test(n))).toHaveLength(2);
  const programs = results.suites[0].programs;
  expect(programs.map((p) => p.name)).toEqual(['gemm', 'jacobi-1d']);
  for (const p of programs) {
    for (const v of results.variants) {
      const res = p.variants[v.name];
      expect({ program: p.name, variant: v.name, status: res.status, detail: res.detail }).toEqual(
        { program: p.name, variant: v.name, status: 'ok', detail: undefined });
      expect(res.median).toBeGreaterThan(0);
      // The time is the kernel's (printed by the -DTSOPT_TIME build), a part of the process's.
      if (hasPerfTaskClock()) expect(res.processMedian).toBeGreaterThan(res.median!);
      expect(res.speedup).toBeGreaterThan(0);
      expect(res.vsPolly).toBeGreaterThan(0);
      // One round: its speedup is the whole band, too thin to call a difference.
      if (v.name === 'clang') expect(res.verdict).toBeUndefined();
      else expect(res).toMatchObject({ roundSpeedups: [res.speedup], spread: [res.speedup, res.speedup], verdict: 'too-few-rounds' });
    }
  }
  // Eight comparisons with clang -O3 and tscc's and the pipe's with Polly, on each of two programs.
  expect(r.stdout).toContain('slower than clang -O3 beyond noise (sign test, p < 0.05/12 = 0.0042): none (1 round: at least 8 are needed to tell with 12 comparisons)\n');
  expect(r.stdout).toContain('slower than Polly beyond noise (same sign test): none (some comparisons had too few rounds to tell)\n');
  for (const p of programs) expect(p.variants.tscc.againstPolly).toMatchObject({ roundSpeedups: [p.variants.tscc.vsPolly], verdict: 'too-few-rounds' });
  // gemm's kernel is versioned: its check executes, and costs a small share of the kernel's instructions.
  const cost = programs[0].checkCost!;
  expect(cost).toMatchObject({ scope: 'kernel', versioned: true });
  if ('error' in cost) throw new Error(cost.error);
  expect(cost.instructions).toBeGreaterThan(10_000);
  // Counted in the check's own function (bench/check-cost.ts): entered once, a few dozen
  // instructions, under 1% of the kernel even at the test sizes (20, 25, 30).
  expect(cost.checkCalls).toBe(1);
  expect(cost.checkInstructions).toBeGreaterThan(10);
  expect(cost.share).toBeGreaterThan(0);
  expect(cost.share).toBeLessThan(0.01);
  const csv = fs.readFileSync(path.join(dir, 'results.csv'), 'utf8');
  expect(csv.split('\n')[0]).toBe('suite,program,variant,status,median_s,speedup_vs_clang_O3,speedup_vs_polly,runs,detail,check_instructions,check_share,speedup_round_min,speedup_round_max,verdict,p_slower,p_faster,process_median_s,share_of_limit,vs_polly_round_min,vs_polly_round_max,vs_polly_verdict,vs_polly_p_slower');
  for (const v of VARIANTS) expect(csv).toContain(`kernels,gemm,${v},ok,`);
  expect(csv).toMatch(/^kernels,gemm,tscc,ok,[^\n]*,\d+,[0-9.]+e[-+]\d+,[0-9.]+,[0-9.]+,too-few-rounds,(?:0\.5000|1\.000),(?:0\.5000|1\.000),[0-9.]*,,[0-9.]+,[0-9.]+,too-few-rounds,(?:0\.5000|1\.000)$/m);
  expect(csv).toContain('kernels,geomean,tscc,ok,');
  const svg = fs.readFileSync(path.join(dir, 'chart.svg'), 'utf8');
  expect(svg).toMatch(/^<svg /);
  for (const v of ['polly', 'gcc-graphite', 'tscc', 'pipe', 'geomean', 'jacobi-1d']) expect(svg).toContain(`>${v}<`);
  const png = fs.readFileSync(path.join(dir, 'chart.png'));
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(png.length).toBeGreaterThan(2000);
}, 300_000);

test('a variant whose output differs is recorded as a mismatch (and fails BENCH_STRICT=1)', () => {
  const header = path.join(out, 'broken.h');
  fs.writeFileSync(header, '#include <stdio.h>\n#define printf(...) printf("broken\\n")\n');
  const dir = path.join(out, 'broken');
  const r = bench(['--kernels', 'gemm', '--repeat', '1', '--out', dir, '--only-variants', 'broken', '--no-check-cost', '--variant', `broken=clang-14 -O3 -include ${header}`],
    { BENCH_STRICT: '1' });
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(/gemm: broken MISMATCH/);
  const results = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8')) as Results;
  const gemm = results.suites[0].programs[0];
  expect(gemm.variants.clang.status).toBe('ok');
  expect(gemm.variants.broken.status).toBe('mismatch');
  expect(fs.readFileSync(path.join(dir, 'results.csv'), 'utf8')).toMatch(/kernels,gemm,broken,mismatch,/);
}, 300_000);

test('by default a run makes the rounds its sign test needs, and judges them; too few rounds cannot say so', () => {
  // One comparison (clang -O0 against clang -O3): by default the run makes the 5 rounds whose
  // sign test can reach p < 0.05. Whatever the load did to the rounds, the verdict must be the one
  // their count gives (slower exactly when all 5 are below 1, p = 1/32).
  const dir = path.join(out, 'slow');
  const slow = ['--kernels', 'gemm', '--only-variants', 'slow', '--no-check-cost', '--variant', 'slow=clang-14 -O0'];
  const r = bench([...slow, '--out', dir]);
  expect(r.status).toBe(0);
  const gemm = (JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8')) as Results).suites[0].programs[0];
  const v = gemm.variants.slow;
  expect(v.status).toBe('ok');
  expect(v.times).toHaveLength(5);
  expect(v.roundsBelow).toBeLessThanOrEqual(5);
  expect(v.pSlower).toBeGreaterThan(0);
  if (v.roundsBelow === 5) {
    expect(v).toMatchObject({ verdict: 'slower' });
    expect(v.pSlower).toBeCloseTo(1 / 32, 12);
    expect(r.stdout).toMatch(/^slower than clang -O3 beyond noise \(sign test, p < 0\.05\/1 = 0\.050\): slow gemm 0\.\d\dx \[[0-9.-]+\] p=0\.031$/m);
  } else {
    expect(v.verdict).not.toBe('slower');
    expect(r.stdout).toMatch(/^slower than clang -O3 beyond noise \(sign test, p < 0\.05\/1 = 0\.050\): none(?: \(.*\))?$/m);
  }
  // Four rounds cannot reach 0.05 even when all agree.
  const few = bench([...slow, '--repeat', '4', '--out', path.join(dir, 'few')]);
  expect(few.stdout).toContain('slower than clang -O3 beyond noise (sign test, p < 0.05/1 = 0.050): none (4 rounds: at least 5 are needed to tell with 1 comparison)\n');
}, 300_000);

// CI smoke run of the benchmark harness on two of our kernels at their test sizes, one repeat:
// the reports exist and hold every variant, every variant's output matched clang -O3's, and
// the run-time check's cost was measured (callgrind) where tsopt versioned the kernel.
// A deliberately broken variant (a forced include that rewrites printf) must show up as a mismatch.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kernelsDir, repoRoot, tempDir } from '../support/tools';

const runJs = path.join(repoRoot, 'dist', 'bench', 'run.js');
const out = tempDir('tsopt-bench-smoke-');

interface Results {
  variants: { name: string }[];
  notes: string[];
  suites: {
    name: string;
    programs: {
      name: string;
      variants: Record<string, { status: string; detail?: string; median?: number; speedup?: number; vsPolly?: number; spread?: number[]; verdict?: string }>;
      checkCost?: { scope: string; instructions: number; checkInstructions: number; checkCalls: number; share: number; versioned: boolean } | { error: string };
    }[];
  }[];
}

const VARIANTS = ['clang', 'polly', 'gcc-graphite', 'tscc', 'pipe'];

function bench(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [runJs, '--kernels-dir', kernelsDir, '--tiny', '--repeat', '1', ...args], {
    encoding: 'utf8', env: { ...process.env, ...env },
  });
}

test('the harness checks, times and reports all five variants, and the check cost', () => {
  const dir = path.join(out, 'all');
  const r = bench(['--kernels', 'gemm,jacobi-1d', '--out', dir, '--check-cost']);
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
      expect(res.speedup).toBeGreaterThan(0);
      expect(res.vsPolly).toBeGreaterThan(0);
      // One round: its speedup is the whole band, too thin to call a difference.
      if (v.name === 'clang') expect(res.verdict).toBeUndefined();
      else expect(res).toMatchObject({ roundSpeedups: [res.speedup], spread: [res.speedup, res.speedup], verdict: 'too-few-rounds' });
    }
  }
  expect(r.stdout).toContain('slower than clang -O3 beyond noise: none (1 round: at least 3 are needed to tell)\n');
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
  expect(csv.split('\n')[0]).toBe('suite,program,variant,status,median_s,speedup_vs_clang_O3,speedup_vs_polly,runs,detail,check_instructions,check_share,speedup_round_min,speedup_round_max,verdict');
  for (const v of VARIANTS) expect(csv).toContain(`kernels,gemm,${v},ok,`);
  expect(csv).toMatch(/^kernels,gemm,tscc,ok,[^\n]*,\d+,[0-9.]+e[-+]\d+,[0-9.]+,[0-9.]+,too-few-rounds$/m);
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
  const r = bench(['--kernels', 'gemm', '--out', dir, '--only-variants', 'broken', '--no-check-cost', '--variant', `broken=clang-14 -O3 -include ${header}`],
    { BENCH_STRICT: '1' });
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(/gemm: broken MISMATCH/);
  const results = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8')) as Results;
  const gemm = results.suites[0].programs[0];
  expect(gemm.variants.clang.status).toBe('ok');
  expect(gemm.variants.broken.status).toBe('mismatch');
  expect(fs.readFileSync(path.join(dir, 'results.csv'), 'utf8')).toMatch(/kernels,gemm,broken,mismatch,/);
}, 120_000);

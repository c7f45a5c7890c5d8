// --parallel (tscc -fopenmp): the outermost loops of a fast path that carry no dependence run
// on OpenMP's threads (codegen/parallel-loop.ts). What the tests pin:
//   tscc -O3 -fopenmp omp-kernels.c          (TSOPT_FLAGS=--verify-each --report=…)
// prints what clang-14 -O3 -fopenmp's build prints under 1, 2 and 4 threads; the report says
// which loops run in parallel (mm's i, rowsum's i, jacobi's two space loops inside its time
// loop) and why prefix's does not; the matrix product called from the program's own parallel
// region runs serially there and right; a build without -fopenmp calls no OpenMP runtime; an
// outlined loop is compiled for the caller's target (its "target-cpu"/"target-features").
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tsccOnPath } from '../tscc/support';
import { tsopt } from '../cli/tsopt-binary';
import { compileToIr, disassemble, runOk, tempDir } from '../support/tools';

const work = tempDir('tsopt-parallel-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const source = path.join(__dirname, 'fixtures', 'omp-kernels.c');

interface Scop { location: string; versioned?: boolean; ompParallelLoops?: string[]; ompSerialLoops?: string[] }

function tscc(args: readonly string[], flags: string): void {
  const { env } = tsccOnPath({ TSCC_STRICT: '1', TSOPT_FLAGS: flags });
  const r = spawnSync('tscc', args, { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tscc ${args.join(' ')} failed: ${r.stderr}`);
}

function run(exe: string, threads: number): string {
  const r = spawnSync(exe, ['97'], { env: { ...process.env, OMP_NUM_THREADS: String(threads) }, encoding: 'utf8' });
  expect(r.status).toBe(0);
  return r.stdout;
}

test('tscc -fopenmp: parallel loops on OpenMP\'s threads, output as clang -O3 -fopenmp\'s under 1, 2 and 4 threads', () => {
  const exe = path.join(work, 'omp');
  const report = path.join(work, 'omp.json');
  tscc(['-O3', '-fopenmp', source, '-o', exe], `--verify-each --report=${report}`);
  const reference = path.join(work, 'omp-ref');
  runOk('clang-14', ['-O3', '-fopenmp', source, '-o', reference]);
  const want = run(reference, 2);
  expect(want.split('\n').filter((l) => l !== '')).toHaveLength(5);
  for (const threads of [1, 2, 4]) expect(run(exe, threads)).toBe(want);
  // Tiled by the schedule optimizer, mm's fast path still runs loops in parallel.
  const tiled = (JSON.parse(fs.readFileSync(report, 'utf8')) as { functions: { name: string; scops: Scop[] }[] }).functions;
  expect(tiled.find((f) => f.name === 'mm')!.scops[0]!.ompParallelLoops!.length).toBeGreaterThan(0);
  // At this size jacobi's sweeps are below the default work per thread and run serially; with no
  // minimum every parallel loop forks, odd trip counts split unevenly. In the original order
  // (--schedule=false; the tiled mm above has three parallel nests, one inside a tile loop) the
  // forks below can be counted by hand.
  const eager = path.join(work, 'omp-eager');
  tscc(['-O3', '-fopenmp', source, '-o', eager], `--verify-each --parallel-min-work=0 --rtc-stats --schedule=false --report=${report}`);
  for (const threads of [2, 3, 4]) expect(run(eager, threads)).toBe(want);
  // --rtc-stats counts the teams started: mm's top-level call forks once, its four calls from the
  // program's own parallel region never (they run serially on their threads); jacobi's two
  // sweeps fork at each of its 5 steps; prefix's loop is serial; with one thread nothing forks.
  const forks = (threads: number): Record<string, string> => {
    const r = spawnSync(eager, ['97'], { env: { ...process.env, OMP_NUM_THREADS: String(threads) }, encoding: 'utf8' });
    expect(r.status).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('tsopt-rtc: '));
    return Object.fromEntries(lines.map((l) => [l.split(' ')[1], / parallel=(\d+)/.exec(l)![1]]));
  };
  expect(forks(2)).toMatchObject({ mm: '1', jacobi: '10', rowsum: '1', prefix: '0' });
  expect(forks(1)).toMatchObject({ mm: '0', jacobi: '0', rowsum: '0', prefix: '0' });

  const functions = (JSON.parse(fs.readFileSync(report, 'utf8')) as { functions: { name: string; scops: Scop[] }[] }).functions;
  const scop = (fn: string): Scop => functions.find((f) => f.name === fn)!.scops[0]!;
  expect(scop('mm').ompParallelLoops).toHaveLength(1);
  expect(scop('rowsum').ompParallelLoops).toHaveLength(1);
  // The time loop carries a dependence; each of its two space loops runs in parallel.
  expect(scop('jacobi').ompParallelLoops).toHaveLength(2);
  expect(scop('prefix').ompParallelLoops).toEqual([]);
  expect(scop('prefix').ompSerialLoops).toEqual(['(none): every loop of the fast path carries a dependence']);
  // The outlined loops call the runtime through libgomp's interface.
  const nm = runOk('nm', [exe]).toString();
  expect(nm).toMatch(/ U GOMP_parallel/);
  expect(nm).toMatch(/ t tsopt\.par\.mm\.scop0\.0/);
}, 300_000);

test('without -fopenmp no loop is outlined and no OpenMP runtime is linked', () => {
  const exe = path.join(work, 'plain');
  tscc(['-O3', source, '-o', exe, '-lm'], '--verify-each');
  const nm = runOk('nm', [exe]).toString();
  expect(nm).not.toMatch(/GOMP_|omp_|tsopt\.par\./);
  const ldd = runOk('ldd', [exe]).toString();
  expect(ldd).not.toMatch(/libomp|libgomp/);
  const reference = path.join(work, 'plain-ref');
  runOk('clang-14', ['-O3', source, '-o', reference]);
  expect(run(exe, 1)).toBe(run(reference, 1));
}, 300_000);

test('an outlined loop keeps the caller\'s target attributes, so opt vectorizes it for that target', () => {
  // clang -march=x86-64-v3 (AVX2): the caller's code is vectorized on <4 x double>. Without the
  // caller's "target-cpu" and "target-features", opt and the backend would take the outlined
  // loops for plain x86-64 (SSE2, no FMA): <2 x double>, separate multiplies and adds.
  const bc = compileToIr(source, ['-O3', '-march=x86-64-v3', '-fopenmp', '-fno-vectorize', '-fno-slp-vectorize']);
  const out = path.join(work, 'target.bc');
  const r = tsopt(['-', '-o', out, '--parallel', '--verify-each'], bc);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const text = disassemble(fs.readFileSync(out));
  const groups = new Map([...text.matchAll(/^attributes #(\d+) = (\{.*\})$/gm)].map((m) => [m[1]!, m[2]!]));
  const outlined = [...text.matchAll(/^define internal void @(tsopt\.par\.[\w.]+)\(i8\* %data\) #(\d+) \{$([^]*?)^\}$/gm)];
  expect(outlined.map((m) => m[1])).toContain('tsopt.par.mm.scop0.0');
  for (const [, , group, body] of outlined) {
    expect(groups.get(group!)).toMatch(/"target-cpu"="x86-64-v3"/);
    expect(groups.get(group!)).toMatch(/"target-features"="[^"]*\+avx2/);
    expect(body).not.toMatch(/<2 x double>/);
  }
  expect(outlined.some(([, , , body]) => /<4 x double>/.test(body!))).toBe(true);
}, 300_000);

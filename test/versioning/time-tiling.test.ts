// Time tiling of iterative stencils (transform/time-tiling.ts): jacobi-2d, heat-3d and fdtd-2d of
// test/kernels get skewed parallelogram tiles across time steps, with their innermost loops
// parallel; seidel-2d (in place) gets the classical skew and tiles walked by wavefronts;
// jacobi-1d (one space dimension) keeps the order the cost model chooses. Each fast path prints exactly what clang
// -O3's build prints, checked bit for bit: the kernels are built from a copy of kernel.h whose
// checksums print in hexadecimal and hash every element's bytes.
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize -march=skylake-avx512 (tscc's unrolling flags) -emit-llvm
//     | tsopt --verify-each --l1-cache-size=32768 --l2-cache-size=1048576 [--time-tile-sizes=…]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Ctx, Schedule } from 'isl-wasm';
import { tsoptAsync } from '../cli/tsopt-binary';
import { compileToIr, kernelsDir, runOk, tempDir } from '../support/tools';

const IR_FLAGS = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false', '-march=skylake-avx512'];
const CACHES = ['--l1-cache-size=32768', '--l2-cache-size=1048576'];
const work = tempDir('tsopt-time-tiling-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

// kernel.h with exact checksums: the sums in hexadecimal and an FNV-1a hash of every element's bytes.
const exactHeader = fs.readFileSync(path.join(kernelsDir, 'kernel.h'), 'utf8').replace(
  /printf\("%s: n=%zu sum=%\.6e wsum=%\.6e\\n", name, n, sum, wsum\);/g,
  'unsigned long long h = 1469598103934665603ULL; for (size_t q = 0; q < n * sizeof a[0]; q++) h = (h ^ ((const unsigned char *)a)[q]) * 1099511628211ULL; ' +
    'printf("%s: n=%zu sum=%a wsum=%a bytes=%016llx\\n", name, n, sum, wsum, h);',
);
fs.writeFileSync(path.join(work, 'kernel.h'), exactHeader);

function source(name: string): string {
  const copy = path.join(work, `${name}.c`);
  if (!fs.existsSync(copy)) fs.copyFileSync(path.join(kernelsDir, `${name}.c`), copy);
  return copy;
}

const bitcode = new Map<string, Buffer>();
function ir(name: string): Buffer {
  let b = bitcode.get(name);
  if (!b) bitcode.set(name, (b = compileToIr(source(name), [...IR_FLAGS, `-I${work}`])));
  return b;
}

interface ScheduleField {
  taken: boolean;
  why: string;
  skewed: boolean;
  tiledBands: number;
  tileSizes: number[][];
  timeTiled: false | { skew: number; sizes: number[]; parallelInnermost: string[] };
}
type Report = { functions: { name: string; scops: { versioned?: boolean; schedule?: ScheduleField; fastPathKept?: boolean; profitability?: string }[] }[] };

async function tsoptOn(name: string, flags: readonly string[], keepUnprofitable = true): Promise<{ schedule: ScheduleField[]; bitcode: Buffer; kept: (string | undefined)[] }> {
  const out = path.join(work, `${name}-${flags.join('_').replace(/[^\w=-]/g, '')}.report`);
  const r = await tsoptAsync(['--verify-each', `--report=${out}`, ...(keepUnprofitable ? ['--keep-unprofitable'] : []), ...CACHES, ...flags], ir(name));
  expect(r.stderr.toString()).toBe('');
  expect(r.status).toBe(0);
  const report = JSON.parse(fs.readFileSync(out, 'utf8')) as Report;
  const scops = report.functions.filter((f) => f.name.startsWith('kernel_')).flatMap((f) => f.scops);
  return { schedule: scops.map((s) => s.schedule!), bitcode: r.stdout, kept: scops.map((s) => (s.fastPathKept ? s.profitability : undefined)) };
}

async function printSchedule(name: string, flags: readonly string[] = []): Promise<string> {
  const r = await tsoptAsync(['--passes=print<schedule>', '-o', '/dev/null', ...CACHES, ...flags], ir(name));
  expect(r.status).toBe(0);
  const text = r.stderr.toString();
  return text.slice(text.indexOf('Function: kernel_'), text.indexOf('Function: main'));
}

/** Links tsopt's output and runs it at each size; each output must be clang -O3's, bit for bit. */
function expectClangOutput(name: string, out: Buffer, sizes: readonly string[][], tag: string): void {
  const obj = path.join(work, `${name}-${tag}.o`);
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], out);
  const exe = path.join(work, `${name}-${tag}`);
  runOk('clang-14', [obj, '-o', exe, '-lm']);
  const reference = path.join(work, `${name}-clang`);
  if (!fs.existsSync(reference)) runOk('clang-14', ['-O3', '-march=skylake-avx512', `-I${work}`, source(name), '-o', reference, '-lm']);
  for (const args of sizes) {
    const expected = runOk(reference, args).toString();
    expect(expected).toMatch(/bytes=[0-9a-f]{16}/);
    expect([name, args, runOk(exe, args).toString()]).toEqual([name, args, expected]);
  }
}

describe('jacobi-2d', () => {
  test('print<schedule>: skewed by 2, tiled 32 x 64 x 512 from L2, the arrays and the SIMD width, both innermost loops parallel', async () => {
    const text = await printSchedule('jacobi-2d');
    expect(text).toContain('time-tiled: the outermost loop carries the reuse; skewed by 2 and tiled 32 x 64 x 512');
    expect(text).toContain('time tiles: 2 array(s) of 8-byte elements, skew 2: height 32, widths 64 x 512 (innermost 64 vectors of 8; 2x128x512x8 B <= 2 x L2 1024 KiB); innermost loops parallel: Stmt_');
    // The tile loops: the time member and the skewed space members, each under its mark.
    expect(text).toMatch(/mark: "tsopt_sequential", child: \{ schedule: "\[\{ Stmt_\w+\[i0, i1, i2\] -> \[\(floor\(\(i0\)\/32\)\)\]/);
    expect(text).toMatch(/floor\(\(1 \+ 2i0 \+ i1\)\/64\)|floor\(\(2i0 \+ i1\)\/64\)/);
    // One innermost loop per statement, in a sequence, each marked parallel: stride 1 along j.
    expect(text.match(/mark: "tsopt_parallel_point", child: \{ schedule: "\[\{ Stmt_\w+\[i0, i1, i2\] -> \[\((1 \+ )?2i0 \+ i2\)\] \}\]"/g)).toHaveLength(2);
  }, 600_000);

  test('the report says skewed and time-tiled; the fast path prints what clang -O3 prints at sizes across tile edges and tiny ones', async () => {
    const { schedule, bitcode: out } = await tsoptOn('jacobi-2d', []);
    expect(schedule).toHaveLength(1);
    expect(schedule[0]).toMatchObject({ taken: true, skewed: true, tiledBands: 1, tileSizes: [[32, 64, 512]], timeTiled: { skew: 2, sizes: [32, 64, 512] } });
    expect((schedule[0]!.timeTiled as { parallelInnermost: string[] }).parallelInnermost).toHaveLength(2);
    // 40 steps over 70 x 70: partial tiles in time and space; 1 x 3: one point; 2 x 4 and 3 x 5: a few.
    expectClangOutput('jacobi-2d', out, [['40', '70'], ['1', '3'], ['2', '4'], ['3', '5'], ['10', '20']], 'auto');
  }, 600_000);

  test('--time-tile-sizes=3,5,8: small tiles, many partial ones, the same output; --time-tile=false: not time-tiled', async () => {
    const { schedule, bitcode: out } = await tsoptOn('jacobi-2d', ['--time-tile-sizes=3,5,8']);
    expect(schedule[0]).toMatchObject({ taken: true, timeTiled: { skew: 2, sizes: [3, 5, 8] } });
    expectClangOutput('jacobi-2d', out, [['10', '20'], ['11', '23'], ['7', '13'], ['1', '3']], 'small');
    const off = await tsoptOn('jacobi-2d', ['--time-tile=false']);
    expect(off.schedule[0]).toMatchObject({ taken: false, timeTiled: false });
  }, 600_000);
});

test('--parallel: a time tile\'s rows are vectorized, never forked per tile: no loop of the time-tiled fast path runs on threads', async () => {
  const out = path.join(work, 'jacobi-2d-parallel.report');
  const r = await tsoptAsync(['--verify-each', `--report=${out}`, '--keep-unprofitable', '--parallel', '--time-tile-wavefront', ...CACHES], ir('jacobi-2d'));
  expect(r.status).toBe(0);
  const report = JSON.parse(fs.readFileSync(out, 'utf8')) as { functions: { name: string; scops: { schedule?: ScheduleField; ompParallelLoops?: string[] }[] }[] };
  const scops = report.functions.filter((f) => f.name.startsWith('kernel_')).flatMap((f) => f.scops);
  expect(scops).toHaveLength(1);
  expect(scops[0]!.schedule?.timeTiled).not.toBe(false);
  // Its sizes are parameters: no wavefronts of tiles either, though asked for (transform/wavefront.ts).
  expect(scops[0]!.schedule?.timeTiled).toMatchObject({ tileWavefrontRefused: 'parametric sizes' });
  expect(scops[0]!.ompParallelLoops).toEqual([]);
}, 600_000);

test('heat-3d (three space dimensions) and fdtd-2d (four statements, one writing a row, shifted against each other): time-tiled, the same output as clang -O3', async () => {
  const heat = await tsoptOn('heat-3d', ['--time-tile-sizes=3,4,5,8']);
  expect(heat.schedule[0]).toMatchObject({ taken: true, skewed: true, timeTiled: { skew: 2, sizes: [3, 4, 5, 8] } });
  expectClangOutput('heat-3d', heat.bitcode, [['6', '10'], ['7', '13'], ['1', '3']], 'small');
  // With parametric sizes, isl's AST of fdtd-2d's tiles takes about 2M operations: over the default quota.
  const fdtd = await tsoptOn('fdtd-2d', ['--time-tile-sizes=3,5,8', '--codegen-max-operations=4000000']);
  expect(fdtd.schedule[0]).toMatchObject({ taken: true, skewed: true, timeTiled: { skew: 1, sizes: [3, 5, 8] } });
  expectClangOutput('fdtd-2d', fdtd.bitcode, [['10', '20', '24'], ['11', '17', '13'], ['1', '2', '2']], 'small');
  const text = await printSchedule('fdtd-2d');
  expect(text).toContain('time-tiled: the outermost loop carries the reuse; skewed by 1 and tiled 32 x 64 x 512');
}, 600_000);

test('fdtd-2d under the default AST quota: the fast path is built in the base order, and the report says why', async () => {
  const { schedule, bitcode: out } = await tsoptOn('fdtd-2d', []);
  expect(schedule[0]).toEqual({
    taken: false, why: 'the original order is kept: isl exceeded its quota of 1000000 operations for the AST of the new schedule (--codegen-max-operations)',
    tiledBands: 0, tileSizes: [], fused: false, skewed: false, timeTiled: false, matmul: false,
  });
  expectClangOutput('fdtd-2d', out, [['10', '20', '24']], 'base');
}, 600_000);

test('the cost model keeps the base order: jacobi-1d (one space dimension: its vectors stay in the caches)', async () => {
  const jacobi1d = await printSchedule('jacobi-1d');
  expect(jacobi1d).toContain('not time-tiled: one space dimension: a time step touches vectors, which stay in the caches across time steps');
  const j = await tsoptOn('jacobi-1d', []);
  expect(j.schedule[0]).toMatchObject({ taken: false, skewed: false, timeTiled: false });
  expectClangOutput('jacobi-1d', j.bitcode, [['20', '30'], ['3', '5']], 'auto');
}, 600_000);

describe('seidel-2d (in place: A[i][j-1] is read right after it is written, every loop carries a dependence)', () => {
  test('print<schedule>: from DeLICM\'s model (-O3\'s PHI of the element just written, mapped back to it), skewed [t, 2t + i, 2t + i + j], each tile walked by wavefronts, none marked parallel', async () => {
    const text = await printSchedule('seidel-2d');
    expect(text).toContain("from DeLICM's model");
    expect(text).toContain('time-tiled: the outermost loop carries the reuse; skewed by 2 (each space member also adds the one outside it) and tiled 32 x 64 x 512, each tile walked by wavefronts');
    expect(text).toContain('innermost loops parallel: none');
    // The tile loops of the skewed members, then the point loops t and the wavefront 2(2t + i) + j, then i's member innermost.
    expect(text).toMatch(/schedule: "\[\{ Stmt_\w+\[i0, i1, i2\] -> \[\(floor\(\(2i0 \+ i1\)\/64\)\)\]/);
    expect(text).toMatch(/schedule: "\[\{ Stmt_\w+\[i0, i1, i2\] -> \[\(floor\(\(2i0 \+ i1 \+ i2\)\/512\)\)\]/);
    expect(text).toMatch(/schedule: "\[\{ Stmt_\w+\[i0, i1, i2\] -> \[\(4i0 \+ 2i1 \+ i2\)\]/);
    expect(text).toMatch(/mark: "tsopt_sequential", child: \{ schedule: "\[\{ Stmt_\w+\[i0, i1, i2\] -> \[\(2i0 \+ i1\)\] \}\]"/);
    expect(text).not.toContain('tsopt_parallel');

    // Checked here apart from the optimizer's own check: every dependence of DeLICM's model (as
    // print<delicm> prints them) goes forward in the printed tree.
    const r = await tsoptAsync(['--passes=print<delicm>', '-o', '/dev/null'], ir('seidel-2d'));
    const delicm = r.stderr.toString();
    const kernel = delicm.slice(delicm.indexOf('Function: kernel_'), delicm.indexOf('Function: main', delicm.indexOf('Function: kernel_')));
    const deps = [...kernel.matchAll(/^\s+(?:RAW|WAR|WAW) dependences \((?:array|scalar)\): (.*)$/gm)].map((m) => m[1]!);
    expect(deps).toHaveLength(6);
    const treeText = text.split('\n').find((line) => line.trim().startsWith('{ domain:'))!.trim();
    const ctx = new Ctx();
    try {
      ctx.scope(() => {
        const all = deps.map((d) => ctx.unionMap(d)).reduce((x, y) => x.union(y));
        expect(all.isEmpty()).toBe(false);
        // { S[..] -> [t, tiles.., points.., wavefront, innermost] }
        const map = Schedule.readFromStr(ctx, treeText).getMap();
        const deltas = all.applyDomain(map).applyRange(map).deltas();
        const n = 7; // 3 tile loops, t, the wavefront, the sequence's position, the innermost loop
        const positive = Array.from({ length: n }, (_, k) => [...Array.from({ length: k }, (_, j) => `d${j} = 0`), `d${k} > 0`].join(' and ')).map((x) => `(${x})`).join(' or ');
        expect(deltas.isSubset(ctx.unionSet(`{ [${Array.from({ length: n }, (_, k) => `d${k}`).join(', ')}] : ${positive} }`))).toBe(true);
      });
    } finally {
      ctx.dispose();
    }
  }, 600_000);

  test('the report says skewed, time-tiled by wavefronts; the fast path is kept unvectorized and prints what clang -O3 prints, with the default tiles and with small ones', async () => {
    // Without --keep-unprofitable: the profitability rule keeps the unvectorized fast path.
    const auto = await tsoptOn('seidel-2d', [], false);
    expect(auto.schedule).toHaveLength(1);
    expect(auto.schedule[0]).toMatchObject({ taken: true, skewed: true, tiledBands: 1, tileSizes: [[32, 64, 512]], timeTiled: { skew: 2, sizes: [32, 64, 512], parallelInnermost: [], wavefront: true } });
    expect(auto.kept).toEqual([expect.stringMatching(/^not vectorized, but time-tiled/)]);
    // 40 steps over 70 x 70 and 33 over 130 x 130: partial tiles in time and space; 1 x 3: one point.
    expectClangOutput('seidel-2d', auto.bitcode, [['40', '70'], ['33', '130'], ['1', '3'], ['2', '4'], ['3', '5']], 'auto');
    // 3 x 5 x 8 tiles: many tiles, each with several wavefronts cut by the tile's edges.
    const small = await tsoptOn('seidel-2d', ['--time-tile-sizes=3,5,8']);
    expect(small.schedule[0]).toMatchObject({ taken: true, timeTiled: { skew: 2, sizes: [3, 5, 8], wavefront: true } });
    expectClangOutput('seidel-2d', small.bitcode, [['10', '20'], ['11', '23'], ['7', '13'], ['1', '3']], 'small');
  }, 600_000);
});

test('seidel-2d as PolyBench builds it (constant sizes, inlined in main): DeLICM reloads -O3\'s rolling window of PHIs, and the kernel is time-tiled by wavefronts, printing what clang -O3 prints', async () => {
  const fixture = path.join(__dirname, 'fixtures', 'seidel-2d-window.c');
  // The PHIs of the window (six, the value loaded at j read at j + 1 and j + 2) reloaded from the array, the PHI of the element just written mapped onto it: no scalar write left in a loop.
  const printed = await tsoptAsync(['--passes=print<delicm>', '-o', '/dev/null'], compileToIr(fixture, IR_FLAGS));
  expect(printed.stderr.toString()).toMatch(/DeLICM at main:%\d+: forwards 0, reloads 7, mapped scalars 0, mapped PHIs 1, scalar writes in loops 15 -> 0/);
  // Sizes where -O3 keeps the j loop (at n = 41 it unrolls it whole: another shape, not a stencil's).
  for (const [tsteps, n] of [['20', '90'], ['9', '67']] as const) {
    const defines = [`-DTSTEPS=${tsteps}`, `-DN=${n}`];
    const report = path.join(work, `window-${n}.report`);
    const r = await tsoptAsync(['--verify-each', `--report=${report}`, ...CACHES], compileToIr(fixture, [...IR_FLAGS, ...defines]));
    expect(r.stderr.toString()).toBe('');
    expect(r.status).toBe(0);
    type Scop = { schedule?: ScheduleField; fastPathFrom?: string; fastPathKept?: boolean };
    const scops = (JSON.parse(fs.readFileSync(report, 'utf8')) as { functions: { name: string; scops: Scop[] }[] }).functions.flatMap((f) => f.scops);
    const tiled = scops.filter((s) => s.schedule?.timeTiled);
    expect(tiled).toHaveLength(1);
    expect(tiled[0]).toMatchObject({ fastPathFrom: 'delicm', fastPathKept: true, schedule: { taken: true, timeTiled: { skew: 2, wavefront: true, parallelInnermost: [] } } });
    const obj = path.join(work, `window-${n}.o`);
    runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], r.stdout);
    const exe = path.join(work, `window-${n}`);
    runOk('clang-14', [obj, '-o', exe, '-lm']);
    const reference = path.join(work, `window-${n}-clang`);
    runOk('clang-14', ['-O3', '-march=skylake-avx512', ...defines, fixture, '-o', reference, '-lm']);
    expect(runOk(exe, []).toString()).toBe(runOk(reference, []).toString());
  }
}, 600_000);

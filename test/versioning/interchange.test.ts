// Loop interchange in the fast path (transform/interchange.ts): a loop walking a column
// (`x[i] += A[j][i] * y[j]` along j) runs outside the loop around it when that loop carries no
// dependence and steps every access by one element or none. -O3 keeps such reductions in PHIs,
// one location for every i, so the interchange is legal only in DeLICM's model, where they are
// array elements: versioning then generates the SCoP from it.
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize -emit-llvm | tsopt --verify-each [--interchange=false]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inParallel, tsoptAsync } from '../cli/tsopt-binary';
import { buildKernel, listKernels, runKernel } from '../support/kernels';
import { compileToIr, kernelsDir, runOk, tempDir } from '../support/tools';

const IR_FLAGS = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', `-I${kernelsDir}`];
const work = tempDir('tsopt-interchange-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface ScopFields {
  versioned?: boolean;
  interchangedLoops?: string[];
  interchangeRefused?: string[];
  fastPathFrom?: string;
  delicmMappedOnly?: string[];
  vectorizedLoops?: unknown[];
  schedule?: { timeTiled?: unknown };
}
type Report = { functions: { name: string; scops: ScopFields[] }[] };

async function report(name: string, flags: readonly string[]): Promise<{ report: Report; bitcode: Buffer }> {
  const out = path.join(work, `${name}-${flags.join('_').replace(/[^\w=-]/g, '')}.report`);
  const r = await tsoptAsync(['--verify-each', `--report=${out}`, ...flags], compileToIr(path.join(kernelsDir, `${name}.c`), IR_FLAGS));
  expect(r.stderr.toString()).toBe('');
  expect(r.status).toBe(0);
  return { report: JSON.parse(fs.readFileSync(out, 'utf8')) as Report, bitcode: r.stdout };
}

function scops(r: Report): ScopFields[] {
  return r.functions.flatMap((f) => f.scops);
}

test('the PolyBench kernels with a column walk under a parallel loop are interchanged, from DeLICM\'s model; no other', async () => {
  const kernels = listKernels('polybench').map((k) => k.name);
  const found = await inParallel(kernels, 2, async (name) => ({ name, scops: scops((await report(name, ['--no-post'])).report) }));
  const interchanged = found.filter((k) => k.scops.some((s) => (s.interchangedLoops ?? []).length > 0)).map((k) => k.name);
  expect(interchanged.sort()).toEqual(['2mm', '3mm', 'correlation', 'covariance', 'doitgen', 'gemver', 'lu', 'mvt', 'trmm']);
  for (const k of found) {
    for (const s of k.scops) {
      if (!s.versioned) continue;
      // Generated from DeLICM's model exactly when a nest is interchanged in it, or when only its mapped PHIs let time tiling take it (seidel-2d).
      const fromDelicm = (s.interchangedLoops ?? []).length > 0 || (k.name === 'seidel-2d' && s.schedule?.timeTiled);
      expect([k.name, s.fastPathFrom]).toEqual([k.name, fromDelicm ? 'delicm' : 'model']);
      expect([k.name, s.interchangeRefused]).toEqual([k.name, undefined]);
      // Only lu's DeLICM is restricted to the nest interchanged.
      expect([k.name, s.delicmMappedOnly !== undefined]).toEqual([k.name, k.name === 'lu' && fromDelicm]);
    }
  }
}, 1_800_000); // every PolyBench kernel through tsopt: the schedule optimizer adds 0.5-1.3 s of CPU per kernel; over 600 s at load 39 on 2 cores

test("lu: DeLICM maps only the scalars of the nest interchanged; the first nest's sum stays a scalar", async () => {
  // Mapped too, the first nest's A[i][j] would be summed in memory beside A[i][k] and A[k][j],
  // which opt cannot keep in a register: 13% slower than clang -O3 (tscc, n = 1200).
  const { report: r } = await report('lu', ['--no-post']);
  const [s] = scops(r);
  expect(s).toMatchObject({ versioned: true, interchangedLoops: [expect.stringMatching(/^%\d+ <-> %\d+$/)], fastPathFrom: 'delicm' });
  const ir = compileToIr(path.join(kernelsDir, 'lu.c'), IR_FLAGS);
  const plain = await tsoptAsync(['--passes=print<scops>', '-o', '/dev/null'], ir);
  // The plain model's statements of kernel_lu and the scalars each touches.
  const text = plain.stderr.toString();
  const kernel = text.slice(text.indexOf('Function: kernel_lu'), text.indexOf('Function: main'));
  const statements = kernel.split(/^ {4}(?=Stmt_)/m).slice(1).map((b) => ({ depth: /Stmt_\d+\[([^\]]*)\]/.exec(b)![1]!.split(',').length, loops: /-> \[0, i0, (\d)/.exec(b)![1], scalars: [...b.matchAll(/(MemRef_v\d+(?:__phi)?)\[\]/g)].map((m) => m[1]!) }));
  // The first nest (position 0 under i) keeps its scalars; the second's (position 1) are the only ones mapped.
  const first = new Set(statements.filter((t) => t.loops === '0').flatMap((t) => t.scalars));
  const second = new Set(statements.filter((t) => t.loops === '1').flatMap((t) => t.scalars));
  expect(first.size).toBeGreaterThan(0);
  expect(s!.delicmMappedOnly).toEqual([...second].sort());
  for (const name of first) expect(s!.delicmMappedOnly).not.toContain(name);
}, 300_000); // every PolyBench kernel through tsopt: the schedule optimizer adds 0.5-1.3 s of CPU per kernel

describe.each(['gemver', 'mvt', 'lu'])('%s', (name) => {
  test('interchanged, opt vectorizes more of the fast path, and the program prints what clang -O3 prints', async () => {
    const on = await report(name, []);
    const off = await report(name, ['--interchange=false']);
    const [s] = scops(on.report);
    expect(s!.interchangedLoops).toHaveLength(1);
    const [t] = scops(off.report);
    expect(t).toMatchObject({ versioned: true, interchangedLoops: [], fastPathFrom: 'model' });
    expect(s!.vectorizedLoops!.length).toBeGreaterThan(t!.vectorizedLoops!.length);

    const obj = path.join(work, `${name}.o`);
    runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], on.bitcode);
    const exe = path.join(work, name);
    runOk('clang-14', [obj, '-o', exe, '-lm']);
    const reference = buildKernel(name, { flags: ['-O3'] });
    // Odd sizes leave -O3's remainder iteration of the unrolled column loop; 1 runs only it.
    for (const n of ['1', '2', '3', '40', '41']) expect(runKernel(exe, [n])).toBe(runKernel(reference, [n]));
  }, 300_000);
});

test('without DeLICM the reduction PHI keeps the nest in order: the interchange is refused and says why', async () => {
  // A quota of one operation: DeLICM gives up, the plain model keeps x[i]'s running sum in a PHI.
  const { report: r } = await report('gemver', ['--no-post', '--delicm-max-operations=1']);
  const [s] = scops(r);
  expect(s).toMatchObject({ versioned: true, interchangedLoops: [], fastPathFrom: 'model' });
  expect(s!.interchangeRefused).toEqual([
    expect.stringMatching(/^%\d+ <-> %\d+: it would reorder the writes and reads of MemRef_v\d+__phi.*, one location for every iteration$/),
    expect.stringMatching(/^DeLICM's model not taken: not tried: .*--delicm-max-operations=1/),
  ]);
}, 300_000);

describe('column-walk.c: the nests interchanged and those left, and the pipe prints what clang -O3 prints', () => {
  const fixture = path.join(__dirname, 'fixtures', 'column-walk.c');
  const bitcode = compileToIr(fixture, IR_FLAGS);

  test('print<interchange>', async () => {
    const r = await tsoptAsync(['--passes=print<interchange>', '-o', '/dev/null'], bitcode);
    expect(r.status).toBe(0);
    const text = r.stderr.toString().replace(/%\d+/g, '%N');
    const kernels = text.split(/^(?=Function: )/m).filter((f) => f.startsWith('Function: kernel_'));
    expect(kernels.join('')).toBe(
      [
        'Function: kernel_colsum',
        '  SCoP at kernel_colsum:%N',
        '    Refused: %N <-> %N: it would reorder the writes and reads of MemRef_v21__phi, MemRef_v39__phi, MemRef_v39, one location for every iteration',
        "    DeLICM's model:",
        '      Interchanged: %N <-> %N',
        '        Stmt_16[i0] -> [0, 0, i0, 0, 0, 0]',
        '        Stmt_20[i0, i1] -> [0, 1, i1, 1, i0, 0]',
        '        Stmt_38[i0] -> [0, 2, i0, 2, 0, 0]',
        '        Stmt_41[i0] -> [0, 3, i0, 3, 0, 0]',
        'Function: kernel_colcopy',
        '  SCoP at kernel_colcopy:%N',
        '    Interchanged: %N <-> %N',
        '      Stmt_18[i0, i1] -> [0, 0, i1, 0, i0, 0]',
        '      Stmt_39[i0] -> [0, 1, i0, 1, 0, 0]',
        'Function: kernel_colscan',
        '  SCoP at kernel_colscan:%N',
        '    Interchanged: %N <-> %N',
        '      Stmt_18[i0, i1] -> [0, 0, i1, 0, i0, 0]',
        '      Stmt_46[i0] -> [0, 1, i0, 1, 0, 0]',
        'Function: kernel_transpose',
        '  SCoP at kernel_transpose:%N',
        '    (no nest worth interchanging)',
        'Function: kernel_rowscan',
        '  SCoP at kernel_rowscan:%N',
        '    (no nest worth interchanging)',
        'Function: kernel_rowsum',
        '  SCoP at kernel_rowsum:%N',
        '    (no nest worth interchanging)',
        '',
      ].join('\n'),
    );
  });

  test('the pipe prints what clang -O3 prints, at sizes that leave every remainder and none; with the sums overlapping the matrix the check fails and the original order runs', async () => {
    const out = path.join(work, 'column-walk.report');
    const r = await tsoptAsync(['--verify-each', '--rtc-stats', `--report=${out}`], bitcode);
    expect(r.status).toBe(0);
    const interchanged = (JSON.parse(fs.readFileSync(out, 'utf8')) as Report).functions
      .filter((f) => f.scops.some((s) => (s.interchangedLoops ?? []).length > 0))
      .map((f) => f.name);
    expect(interchanged).toEqual(['kernel_colsum', 'kernel_colcopy', 'kernel_colscan']);
    const obj = path.join(work, 'column-walk.o');
    runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], r.stdout);
    const exe = path.join(work, 'column-walk');
    runOk('clang-14', [obj, '-o', exe]);
    const reference = path.join(work, 'column-walk-ref');
    runOk('clang-14', ['-O3', fixture, '-o', reference]);
    for (const args of [[], ['1', '1'], ['2', '3'], ['3', '2'], ['0', '5'], ['5', '0'], ['1', '7'], ['64', '33']]) {
      expect(runOk(exe, args).toString()).toBe(runOk(reference, args).toString());
    }
    // kernel_colsum's fast path comes from DeLICM's model; its second call overlaps s with A.
    const stats = path.join(work, 'column-walk.rtc');
    runOk('env', [`TSOPT_RTC_STATS=${stats}`, exe]);
    expect(fs.readFileSync(stats, 'utf8')).toMatch(/^tsopt-rtc: kernel_colsum \S+ scop\d+: fast=1 slow=1 alias\(%\d+,%\d+\)-failed=1$/m);
  }, 300_000);
});

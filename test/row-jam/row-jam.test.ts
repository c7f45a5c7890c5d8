// The row jam (transform/row-jam.ts, codegen/row-jam.ts) on kernels of our own, compiled as tscc
// compiles them: a forward substitution (trisolv's shape) runs its rows 8 at a time from
// DeLICM's model, and prints what clang -O3's build prints at sizes that are and are not
// multiples of 8; --row-jam=false keeps it off; a Cholesky factorization (cholesky's shape: the
// diagonal's sum a second nest in the i loop) runs its entries left of the diagonal 8 at a time.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tsoptAsync } from '../cli/tsopt-binary';
import { compileToIr, runOk, tempDir } from '../support/tools';

const work = tempDir('tsopt-row-jam-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

// tscc's front end (cli/tscc.ts): vectorizers and runtime unrolling left to the post pipeline.
const FRONT_END = ['-O3', '-march=native', '-fno-vectorize', '-fno-slp-vectorize', '-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false'];

interface ScopFields {
  fastPathFrom?: string;
  fastPathKept?: boolean;
  profitability?: string;
  schedule?: { taken?: boolean; rowJammed?: { statement: string; factor: number; rowDepth: number }; rowJamRefused?: string };
}

/** tsopt on `fixture` built with `defines`: the kernel's SCoP report and a program built from tsopt's output. */
async function optimized(fixture: string, kernel: string, defines: readonly string[], flags: readonly string[], tag: string): Promise<{ scop: ScopFields; exe: string; reference: string; ir: string }> {
  const source = path.join(__dirname, 'fixtures', fixture);
  const out = path.join(work, `${tag}.report`);
  const r = await tsoptAsync(['--verify-each', `--report=${out}`, ...flags], compileToIr(source, [...FRONT_END, ...defines]));
  expect(r.stderr.toString()).toBe('');
  expect(r.status).toBe(0);
  const report = JSON.parse(fs.readFileSync(out, 'utf8')) as { functions: { name: string; scops: ScopFields[] }[] };
  const scops = report.functions.find((f) => f.name === kernel)!.scops;
  expect(scops).toHaveLength(1);
  const obj = path.join(work, `${tag}.o`);
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], r.stdout);
  const exe = path.join(work, tag);
  runOk('clang-14', [obj, '-o', exe, '-lm']);
  const reference = path.join(work, `${tag}.ref`);
  runOk('clang-14', ['-O3', '-march=native', ...defines, source, '-o', reference, '-lm']);
  return { scop: scops[0]!, exe, reference, ir: runOk('llvm-dis-14', ['-o', '-'], r.stdout).toString() };
}

/** Per basic block of `fn`'s definition in `ir` (opt's output) with fenced sums: the fences and the stores. */
function fencedBlocks(ir: string, fn: string): { fences: number; stores: number }[] {
  const start = ir.search(new RegExp(`^define [^\\n]*@${fn}\\(`, 'm'));
  const body = ir.slice(start, ir.indexOf('\n}\n', start));
  return body.split(/\n(?=[\w.$-]+:)/).map((b) => ({ fences: b.split('@llvm.arithmetic.fence').length - 1, stores: (b.match(/^\s*store /gm) ?? []).length })).filter((b) => b.fences > 0);
}

function sameOutput(exe: string, reference: string, sizes: readonly number[]): void {
  for (const n of sizes.map(String)) expect([n, runOk(exe, [n]).toString()]).toEqual([n, runOk(reference, [n]).toString()]);
}

describe.each([['flat', []], ['vla', ['-DVLA']]] as const)('forward substitution (%s)', (tag, defines) => {
  test("its rows run jammed by 8 from DeLICM's model, and the program prints what clang -O3's prints", async () => {
    const { scop, exe, reference, ir } = await optimized('forward-subst.c', 'kernel_forward', defines, [], `forward-${tag}`);
    expect(scop).toMatchObject({ fastPathFrom: 'delicm', schedule: { taken: true, rowJammed: { factor: 8, rowDepth: 1 } } });
    // Each row's sum and the finished x[k] apart for opt (codegen/row-jam.ts).
    expect(ir).toMatch(/!"tsopt kernel_forward [^"]* row jam"/);
    expect(ir).toMatch(/!"row 0"}/);
    expect(ir).toMatch(/!"finished"}/);
    // Each row's sum through a fence, so the SLP vectorizer leaves the 8 chains scalar.
    expect(ir).toMatch(/call double @llvm\.arithmetic\.fence\.f64/);
    // ... kept in registers across k: no store in the jammed loop's body.
    const jammedBodies = fencedBlocks(ir, 'kernel_forward');
    expect(jammedBodies.length).toBeGreaterThan(0);
    for (const b of jammedBodies) expect(b).toEqual({ fences: expect.any(Number), stores: 0 });
    // 1..7 rows: no full block; 8, 16, 64: whole blocks only; the others a partial block at the end.
    sameOutput(exe, reference, [1, 2, 7, 8, 9, 15, 16, 17, 37, 64, 100]);
  }, 300_000);
});

test('--row-jam=false keeps the rows in their order, and --row-jam-factor=4 jams 4', async () => {
  const off = await optimized('forward-subst.c', 'kernel_forward', ['-DVLA'], ['--row-jam=false'], 'forward-off');
  expect(off.scop.schedule?.rowJammed).toBeUndefined();
  expect(off.ir).not.toMatch(/row jam|arithmetic\.fence/);
  const four = await optimized('forward-subst.c', 'kernel_forward', ['-DVLA'], ['--row-jam-factor=4'], 'forward-four');
  expect(four.scop.schedule).toMatchObject({ taken: true, rowJammed: { factor: 4 } });
  sameOutput(four.exe, four.reference, [3, 4, 5, 37]);
}, 300_000);

// Flat, the SCoP is the whole i loop (rows j at depth 2); with the size a parameter it is one
// iteration of i (i a parameter of the SCoP, rows j at depth 1).
describe.each([['flat', [], 2], ['vla', ['-DVLA'], 1]] as const)('cholesky (%s)', (tag, defines, rowDepth) => {
  test("its entries left of the diagonal run jammed by 8, the diagonal's sum after them, the fast path is kept, and the program prints what clang -O3's prints", async () => {
    const { scop, exe, reference, ir } = await optimized('cholesky-rows.c', 'kernel_cholesky', defines, [], `cholesky-${tag}`);
    // The rows are the j loop inside i; the diagonal's sum is a loop of its own in i's body.
    expect(scop).toMatchObject({ fastPathFrom: 'delicm', schedule: { taken: true, rowJammed: { factor: 8, rowDepth } } });
    expect(scop.schedule?.rowJamRefused).toBeUndefined();
    // One array only, so the check proves no aliasing: the jam alone keeps the fast path (passes/profitability.ts).
    expect(scop).toMatchObject({ fastPathKept: true, profitability: expect.stringMatching(/row-jammed/) });
    // The jammed loop's body (8 rows, unrolled by opt) keeps the 8 sums in registers: fenced
    // sums and no store (codegen/row-jam.ts: a scope per row, one address per row's element, an
    // unroll count within LICM's limit).
    const jammedBodies = fencedBlocks(ir, 'kernel_cholesky');
    expect(jammedBodies.length).toBeGreaterThan(0);
    for (const b of jammedBodies) expect(b).toEqual({ fences: expect.any(Number), stores: 0 });
    expect(ir).toMatch(/!"row 7"}/);
    // Jammed: the k < j0 of a block j0..j0+7 of a row i > j0+7, so none up to 16, one block at 17;
    // 57 and 100 end in partial blocks.
    sameOutput(exe, reference, [1, 7, 8, 9, 17, 57, 100]);
  }, 600_000);
});

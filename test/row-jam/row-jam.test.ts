// The row jam (transform/row-jam.ts, codegen/row-jam.ts) on kernels of our own, compiled as tscc
// compiles them: a forward substitution (trisolv's shape) runs its rows 8 at a time from
// DeLICM's model, and prints what clang -O3's build prints at sizes that are and are not
// multiples of 8; --row-jam=false keeps it off; a Cholesky factorization (cholesky's shape:
// a second nest in the row's loop) is refused, with the reason in the report.
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

function sameOutput(exe: string, reference: string, sizes: readonly number[]): void {
  for (const n of sizes.map(String)) expect([n, runOk(exe, [n]).toString()]).toEqual([n, runOk(reference, [n]).toString()]);
}

describe.each([['flat', []], ['vla', ['-DVLA']]] as const)('forward substitution (%s)', (tag, defines) => {
  test("its rows run jammed by 8 from DeLICM's model, and the program prints what clang -O3's prints", async () => {
    const { scop, exe, reference, ir } = await optimized('forward-subst.c', 'kernel_forward', defines, [], `forward-${tag}`);
    expect(scop).toMatchObject({ fastPathFrom: 'delicm', schedule: { taken: true, rowJammed: { factor: 8, rowDepth: 1 } } });
    // The rows' sums and the finished x[k] apart for opt (codegen/row-jam.ts).
    expect(ir).toMatch(/!"tsopt kernel_forward [^"]* row jam"/);
    expect(ir).toMatch(/!"rows"}/);
    expect(ir).toMatch(/!"finished"}/);
    // Each row's sum through a fence, so the SLP vectorizer leaves the 8 chains scalar.
    expect(ir).toMatch(/call double @llvm\.arithmetic\.fence\.f64/);
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

test("cholesky's rows are refused (a second nest in the row's loop), the report says why, and the program prints what clang -O3's prints", async () => {
  const { scop, exe, reference } = await optimized('cholesky-rows.c', 'kernel_cholesky', ['-DVLA'], [], 'cholesky-vla');
  expect(scop.schedule?.rowJammed).toBeUndefined();
  expect(scop.schedule?.rowJamRefused).toMatch(/another nest/);
  sameOutput(exe, reference, [1, 9, 37]);
}, 300_000);

// The matmul path's check and AST at constant sizes get --codegen-max-operations once per matrix
// product (codegen/versioning.ts): two products whose AST takes about 0.64M operations are built
// on the path under a quota of 400,000 (800,000 for the two), and kept in the original order,
// with the report saying why, under 300,000 (600,000). Either way the program prints what clang
// -O3's build prints.
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize -march=skylake-avx512 (tscc's unrolling flags) -emit-llvm
//     | tsopt --verify-each --codegen-max-operations=N | llc-14 -O3
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tsoptAsync } from '../cli/tsopt-binary';
import { compileToIr, runOk, tempDir } from '../support/tools';

const IR_FLAGS = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false', '-march=skylake-avx512'];
const fixture = path.join(__dirname, 'fixtures', 'two-products.c');
const work = tempDir('tsopt-matmul-quota-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

type Schedule = { taken: boolean; why: string; matmul: false | { statement: string }[] };

/** tsopt on the fixture with `quota`: kernel_two_products' schedule, and the program's output next to clang -O3's. */
async function build(quota: number): Promise<{ schedule: Schedule; output: string; reference: string }> {
  const report = path.join(work, `q${quota}.json`);
  const r = await tsoptAsync(['--verify-each', `--report=${report}`, '--l1-cache-size=32768', '--l2-cache-size=1048576', `--codegen-max-operations=${quota}`], compileToIr(fixture, IR_FLAGS));
  expect(r.stderr.toString()).toBe('');
  expect(r.status).toBe(0);
  const functions = (JSON.parse(fs.readFileSync(report, 'utf8')) as { functions: { name: string; scops: { versioned: boolean; schedule: Schedule }[] }[] }).functions;
  const scops = functions.find((f) => f.name === 'kernel_two_products')!.scops;
  expect(scops).toHaveLength(1);
  expect(scops[0]!.versioned).toBe(true);
  const obj = path.join(work, `q${quota}.o`);
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], r.stdout);
  const exe = path.join(work, `q${quota}`);
  runOk('clang-14', [obj, '-o', exe]);
  const ref = path.join(work, 'clang');
  if (!fs.existsSync(ref)) runOk('clang-14', ['-O3', '-march=skylake-avx512', `-I${path.dirname(fixture)}`, fixture, '-o', ref]);
  return { schedule: scops[0]!.schedule, output: runOk(exe, []).toString(), reference: runOk(ref, []).toString() };
}

test('two products at constant sizes: one quota each, so both get the matmul path where one quota alone would not do', async () => {
  const { schedule, output, reference } = await build(400_000);
  expect(schedule).toMatchObject({ taken: true, matmul: [expect.objectContaining({ statement: expect.any(String) }), expect.objectContaining({ statement: expect.any(String) })] });
  expect(output).toBe(reference);
}, 300_000);

test('two products over twice the quota: the original order, and the report names the quota as once per product', async () => {
  const { schedule, output, reference } = await build(300_000);
  expect(schedule).toMatchObject({
    taken: false,
    why: 'the original order is kept: isl exceeded its quota of 600000 operations for the AST of the new schedule (--codegen-max-operations, once per matrix product)',
    matmul: false,
  });
  expect(output).toBe(reference);
}, 300_000);

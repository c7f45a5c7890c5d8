// The schedule step on a SCoP of many statements (two matrix products with the initialisation
// of their arrays, as PolyBench's 2mm gives inlined into main) under a quota of isl operations:
// the cost model's strides are asked once per access (transform/interchange.ts `stride`), so the
// step fits a quota it used to spend whole; and a quota spent inside isl's text reader, which
// reports it as a syntax error, is a spent quota in the report (isl-wasm Ctx.fail).
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize (tscc's unrolling flags) -march=skylake-avx512 -emit-llvm
//     | tsopt --verify-each --schedule-max-operations=N
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tsoptAsync } from '../cli/tsopt-binary';
import { compileToIr, run, runOk, tempDir } from '../support/tools';

const SOURCE = path.join(__dirname, 'fixtures', 'inits-2mm.c');
const IR_FLAGS = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false', '-march=skylake-avx512'];
const CACHES = ['--l1-cache-size=32768', '--l2-cache-size=1048576'];
const work = tempDir('tsopt-schedule-quota-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface ScopFields {
  location: string;
  schedule: { taken: boolean; why: string; tiledBands: number };
}
type Report = { functions: { name: string; scops: ScopFields[] }[] };

let bitcode: Buffer | undefined;
function ir(): Buffer {
  return (bitcode ??= compileToIr(SOURCE, IR_FLAGS));
}

async function tsoptWith(quota: number): Promise<{ scops: ScopFields[]; out: Buffer }> {
  const report = path.join(work, `report-${quota}.json`);
  const r = await tsoptAsync(['--verify-each', `--report=${report}`, '--keep-unprofitable', ...CACHES, `--schedule-max-operations=${quota}`], ir());
  expect(r.stderr.toString()).toBe('');
  expect(r.status).toBe(0);
  const parsed = JSON.parse(fs.readFileSync(report, 'utf8')) as Report;
  return { scops: parsed.functions.filter((f) => f.name === 'init_2mm').flatMap((f) => f.scops), out: r.stdout };
}

test('one SCoP of six statements: within 280000 operations both products are tiled, and the output is clang -O3\'s', async () => {
  const { scops, out } = await tsoptWith(280_000);
  expect(scops).toHaveLength(1);
  // Before strides were remembered the step spent the quota (isl_map_read_from_str: syntax error).
  expect(scops[0]!.schedule).toMatchObject({ taken: true, why: "isl's schedule taken: 2 band(s) tiled", tiledBands: 2 });
  const obj = path.join(work, 'inits-2mm.o');
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], out);
  const exe = path.join(work, 'inits-2mm');
  runOk('clang-14', [obj, '-o', exe, '-lm']);
  const reference = path.join(work, 'inits-2mm-clang');
  runOk('clang-14', ['-O3', SOURCE, '-o', reference, '-lm']);
  const expected = runOk(reference, []).toString();
  expect(expected).toMatch(/^D: n=2200 sum=\S+ wsum=\S+\n$/);
  expect(run(exe, []).stdout.toString()).toBe(expected);
}, 120_000);

test('a quota spent while isl reads text is reported as the spent quota, not as a syntax error', async () => {
  const { scops } = await tsoptWith(80_000);
  expect(scops).toHaveLength(1);
  expect(scops[0]!.schedule.taken).toBe(false);
  expect(scops[0]!.schedule.why).toMatch(/^the original order is kept: isl ran out of its quota for the schedule \(\w+: maximal number of operations exceeded/);
}, 120_000);

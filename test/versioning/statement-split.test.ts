// Statement splitting (analysis/statement-split.ts) on a symm-shaped kernel of our own
// (fixtures/symm-split.c): the k loop's block holds the update C[k][j] += alpha*B[i][j]*A[i][k]
// and the sum t += B[k][j]*A[i][k] (a PHI). Detection makes them two statements, the update
// without a scalar, the sum with the PHI's read and write; isl's scheduler then gives the update
// a nest of its own after the sums, tiled (at compile-time sizes the matmul path's micro-kernel),
// and the fast path prints what clang -O3's build prints, at run-time sizes that are and are not
// multiples of the tiles. Without splitting (ScopDetectionOptions.split false, or
// --split-statements=false for the model) the block stays one statement and the original order
// is kept.
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize -march=skylake-avx512 (tscc's unrolling flags) -emit-llvm
//     | tsopt --verify-each --l1-cache-size=32768 --l2-cache-size=1048576 | llc-14 -O3
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tsoptAsync } from '../cli/tsopt-binary';
import { parseModule } from '../../ir';
import { AnalysisManager } from '../../analysis/analysis-manager';
import { detectScops } from '../../analysis/scop-detection';
import { compileToIr, disassemble, runOk, tempDir } from '../support/tools';

const IR_FLAGS = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false', '-march=skylake-avx512'];
const fixture = path.join(__dirname, 'fixtures', 'symm-split.c');
const work = tempDir('tsopt-statement-split-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** Each kernel's statements as detection hands them to the model: name, accesses (`read C`, `write phi`) and whether it is a part of its block. */
function statements(split: boolean): Map<string, { name: string; accesses: string[]; part: boolean }[]> {
  const module = parseModule(disassemble(compileToIr(fixture, IR_FLAGS)));
  const out = new Map<string, { name: string; accesses: string[]; part: boolean }[]>();
  for (const fn of module.functions.filter((f) => f.name.startsWith('kernel_'))) {
    const [scop] = detectScops(fn, new AnalysisManager(), { split }).scops;
    out.set(fn.name, scop!.statements.map((st) => ({
      name: st.name,
      accesses: [...st.accesses.map((a) => `${a.kind} array`), ...st.scalars.map((s) => `${s.access} ${s.kind}`)],
      part: st.instructions !== undefined,
    })));
  }
  return out;
}

test("the k loop's block becomes the update, which touches no scalar, and the sum, which reads and writes its PHI; without splitting it stays one statement", () => {
  for (const [fn, sts] of statements(true)) {
    const parts = sts.filter((s) => s.part);
    expect([fn, parts.map((s) => s.name.endsWith('_b'))]).toEqual([fn, [false, true]]);
    const [update, sum] = parts;
    // The update: three loads (B[i][j], A[i][k], C[k][j]) and the store of C[k][j], no scalar.
    expect(update!.accesses.sort()).toEqual(['read array', 'read array', 'read array', 'write array']);
    // The sum: B[k][j] and A[i][k], and the PHI t.
    expect(sum!.accesses).toEqual(expect.arrayContaining(['read array', 'read array', 'read phi', 'write phi']));
    expect(sum!.accesses.filter((a) => a === 'write array')).toEqual([]);
  }
  for (const [fn, sts] of statements(false)) expect([fn, sts.filter((s) => s.part)]).toEqual([fn, []]);
}, 120_000);

type Scop = { versioned: boolean; fastPathKept?: boolean; splitStatements?: string[]; schedule?: { taken: boolean; why: string; tileSizes: number[][]; fused: boolean; matmul: false | { statement: string; microTile: number[] }[] } };

test("isl's scheduler gives the update a tiled nest of its own (the matmul path at compile-time sizes), and the fast path prints what clang -O3's build prints", async () => {
  const report = path.join(work, 'symm-split.json');
  const r = await tsoptAsync(['--verify-each', `--report=${report}`, '--l1-cache-size=32768', '--l2-cache-size=1048576'], compileToIr(fixture, IR_FLAGS));
  expect(r.stderr.toString()).toBe('');
  expect(r.status).toBe(0);
  const functions = (JSON.parse(fs.readFileSync(report, 'utf8')) as { functions: { name: string; scops: Scop[] }[] }).functions;
  const scop = (fn: string): Scop[] => functions.find((f) => f.name === fn)!.scops;
  // The report names both parts of the k loop's block.
  for (const fn of ['kernel_symm_vla', 'kernel_symm_fixed']) {
    expect([fn, scop(fn)[0]!.splitStatements]).toEqual([fn, [expect.stringMatching(/^Stmt_\w+ \(in loop %\d+\)$/), expect.stringMatching(/^Stmt_\w+_b \(in loop %\d+\)$/)]]);
  }
  // Run-time sizes: the update's band tiled by the generic tiling (three members).
  expect(scop('kernel_symm_vla')).toMatchObject([{ versioned: true, fastPathKept: true, schedule: { taken: true, matmul: false } }]);
  expect(scop('kernel_symm_vla')[0]!.schedule!.tileSizes.map((s) => s.length)).toEqual([3]);
  // Compile-time sizes: the update is a matrix product over i (C[k][j] += alpha*B[i][j]*A[i][k]).
  expect(scop('kernel_symm_fixed')).toMatchObject([{ versioned: true, fastPathKept: true, schedule: { taken: true, matmul: [{ microTile: [8, 24] }] } }]);
  // --split-statements=false: one statement per block, and the sums keep the update in the original order.
  const unsplitReport = path.join(work, 'symm-unsplit.json');
  const u = await tsoptAsync(['--verify-each', '--split-statements=false', `--report=${unsplitReport}`, '--l1-cache-size=32768', '--l2-cache-size=1048576'], compileToIr(fixture, IR_FLAGS));
  expect(u.status).toBe(0);
  const unsplit = (JSON.parse(fs.readFileSync(unsplitReport, 'utf8')) as { functions: { name: string; scops: Scop[] }[] }).functions;
  for (const fn of ['kernel_symm_vla', 'kernel_symm_fixed']) {
    expect([fn, unsplit.find((f) => f.name === fn)!.scops]).toEqual([fn, [expect.objectContaining({ versioned: true, schedule: expect.objectContaining({ taken: false }) })]]);
    expect(unsplit.find((f) => f.name === fn)!.scops[0]!.splitStatements).toBeUndefined();
  }
  const obj = path.join(work, 'symm-split.o');
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], r.stdout);
  const exe = path.join(work, 'symm-split');
  runOk('clang-14', [obj, '-o', exe]);
  const reference = path.join(work, 'symm-split-clang');
  runOk('clang-14', ['-O3', '-march=skylake-avx512', fixture, '-o', reference]);
  // Sizes that are multiples of nothing, fewer rows than one tile, more columns than one, one element.
  for (const args of [['37', '53'], ['130', '70'], ['5', '300'], ['1', '1']]) {
    expect([args, runOk(exe, args).toString()]).toEqual([args, runOk(reference, args).toString()]);
  }
}, 300_000);

// The schedule optimizer's cost model compares the loops that repeat each statement
// (transform/running-loops.ts): -O3 peels cholesky's j = 0 iteration into a statement whose j
// dimension is fixed (`Stmt[i0, i1 = 0]`, `A[i][0] /= A[0][0]`). Taking that fixed dimension
// for its innermost loop said it walked nothing in the original order and a column in isl's,
// and the whole SCoP kept its order for that one statement.
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize (tscc's unrolling flags) -emit-llvm fixtures/peeled-division.c
//     | tsopt --passes=print<schedule> --row-jam=false
import * as path from 'node:path';
import { tsoptAsync } from '../cli/tsopt-binary';
import { compileToIr } from '../support/tools';

const IR_FLAGS = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false', '-march=skylake-avx512'];

test("cholesky's peeled division: its fixed j is not its innermost loop; the reason the order is kept is the schedule's, not that statement's", async () => {
  const ir = compileToIr(path.join(__dirname, 'fixtures', 'peeled-division.c'), IR_FLAGS);
  const scops = await tsoptAsync(['--passes=print<scops>', '-o', '/dev/null'], ir);
  expect(scops.status).toBe(0);
  // The peeled statement is there: one of its dimensions fixed to 0.
  expect(scops.stderr.toString()).toMatch(/Domain := \{ Stmt_\d+\[i0, i1 = 0\] : 0 < i0 <= 119 \}/);
  // The row jam takes cholesky by default (test/row-jam); this is about the isl schedule's cost model.
  const r = await tsoptAsync(['--passes=print<schedule>', '--row-jam=false', '-o', '/dev/null'], ir);
  expect(r.status).toBe(0);
  const text = r.stderr.toString();
  expect(text).not.toMatch(/innermost loop would walk/);
  expect(text).toContain("the original order is kept: isl's schedule has no band to tile and walks no fewer rows");
}, 300_000);

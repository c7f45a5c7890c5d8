// Operand-tree forwarding with a load and with a counter (fixtures/forward.c, the DeLICM
// paper's Listing 9; issue 18): t = A[i] * 3 + 1 (A never written in the SCoP) and u = i * 0.5
// are recomputed in the j loop, the scalars and their writes go; with A[i] overwritten in the
// j loop, t is not forwarded. All three print what clang -O3 prints.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { buildFixtureThrough, functionText, scalarSlots } from './end-to-end';

const work = tempDir('tsopt-delicm-forward-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

test('trees with a load of an unwritten array and with a counter are forwarded; not with the array written between', () => {
  const b = buildFixtureThrough('forward.c', 'delicm,versioning', work);
  // -O3 unrolls the j loop by 4: the unrolled body and the remainder read the scalar.
  for (const fn of ['kernel_forward_load', 'kernel_forward_iv']) {
    expect(b.scops(fn)).toEqual([expect.objectContaining({ fastPathFrom: 'delicm', delicm: expect.objectContaining({ forwards: 2, scalarWritesBefore: 1, scalarWritesAfter: 0 }) })]);
    expect(scalarSlots(functionText(b.text, fn))).toEqual([]);
  }
  expect(b.scops('kernel_no_forward')).toEqual([expect.objectContaining({ delicm: expect.objectContaining({ forwards: 0, scalarWritesAfter: 1 }) })]);
  // The fast path of kernel_forward_load loads A[i] in the j loop and multiplies-adds it again.
  expect(functionText(b.text, 'kernel_forward_load').match(/call double @llvm\.fmuladd\.f64/g)!.length).toBeGreaterThan(1);
  const reference = path.join(work, 'forward.ref');
  runOk('clang-14', ['-O3', path.join(__dirname, 'fixtures', 'forward.c'), '-o', reference]);
  for (const args of [[], ['1', '1'], ['10', '3'], ['3', '10'], ['50', '33']]) expect(runOk(b.exe, args).toString()).toBe(runOk(reference, args).toString());
}, 60_000);

// Reloads (fixtures/reload.c, the DeLICM paper's Listing 10): a value loaded in the i loop and
// read as a scalar in the j loop is loaded again from its element where the element still holds
// it, and nowhere else; the fast path needs no slot once every read is reloaded, and both
// kernels print what clang -O3 prints.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { buildFixtureThrough, functionText, scalarSlots } from './end-to-end';

const work = tempDir('tsopt-delicm-reload-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

test('a = A[i] reloaded in the j loop; not after the j loop stores A[i]', () => {
  const b = buildFixtureThrough('reload.c', 'delicm,versioning', work);
  // -O3 unrolls the j loop by 4: the unrolled body and the remainder read a.
  expect(b.scops('kernel_reload')).toEqual([expect.objectContaining({ fastPathFrom: 'delicm', delicm: expect.objectContaining({ reloads: 2, scalarWritesBefore: 1, scalarWritesAfter: 0 }) })]);
  expect(scalarSlots(functionText(b.text, 'kernel_reload'))).toEqual([]);
  // The peeled iterations j = 0, 1 run before the store A[i] = C[2] and reload a; the loop after it reads the scalar.
  expect(b.scops('kernel_no_reload')).toEqual([expect.objectContaining({ fastPathFrom: 'delicm', delicm: expect.objectContaining({ reloads: 3, scalarWritesBefore: 1, scalarWritesAfter: 1 }) })]);
  expect(scalarSlots(functionText(b.text, 'kernel_no_reload'))).toHaveLength(1);
  const reference = path.join(work, 'reload.ref');
  runOk('clang-14', ['-O3', path.join(__dirname, 'fixtures', 'reload.c'), '-o', reference]);
  for (const args of [[], ['1', '1'], ['10', '3'], ['3', '10'], ['50', '33']]) expect(runOk(b.exe, args).toString()).toBe(runOk(reference, args).toString());
}, 300_000);

// A mapped write that covers only some statement instances (fixtures/partial-write.c): the
// fast path stores it under its condition, prints what clang -O3 prints, and a pass that does
// not apply DeLICM (print<delicm>) leaves versioning on the plain model.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { buildFixtureThrough, functionText, scalarSlots } from './end-to-end';

const work = tempDir('tsopt-delicm-partial-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

test('t lives in B[i] where i % 3 == 0: stored there under that condition, same output as clang -O3', () => {
  const b = buildFixtureThrough('partial-write.c', 'delicm,versioning', work);
  expect(b.scops('kernel_partial').map((s) => s.fastPathFrom)).toEqual(['delicm']);
  expect(b.scops('kernel_partial').map((s) => s.delicm!.scalarWritesBefore - s.delicm!.scalarWritesAfter)).toEqual([1]);
  // The host prefixes the pass's name once (the statistics sum main's SCoPs too).
  expect(b.stats).toMatchObject({ 'delicm.mapped-scalars': 1, 'delicm.scalar-writes-removed': expect.any(Number) });
  expect(Object.keys(b.stats).filter((k) => k.startsWith('delicm.delicm.'))).toEqual([]);
  const fn = functionText(b.text, 'kernel_partial');
  expect(fn).toMatch(/br i1 %\d+, label %tsopt\.scop0\.mapped\.store, label %tsopt\.scop0\.mapped\.merge/);
  expect(scalarSlots(fn)).toEqual([]);
  const reference = path.join(work, 'partial.ref');
  runOk('clang-14', ['-O3', path.join(__dirname, 'fixtures', 'partial-write.c'), '-o', reference]);
  for (const n of ['1', '2', '3', '10', '100']) expect(runOk(b.exe, [n]).toString()).toBe(runOk(reference, [n]).toString());
}, 300_000);

test('print<delicm> computes DeLICM but applies nothing: versioning generates from the plain model', () => {
  expect(buildFixtureThrough('partial-write.c', 'print<delicm>,versioning', work).scops('kernel_partial').map((s) => s.fastPathFrom)).toEqual(['model']);
}, 300_000);

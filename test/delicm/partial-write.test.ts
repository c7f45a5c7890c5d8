// A mapped write that covers only some statement instances (fixtures/partial-write.c): the
// fast path stores it under its condition, prints what clang -O3 prints, and a pass that does
// not apply DeLICM (print<delicm>) leaves versioning on the plain model.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compileToIr, repoRoot, runOk, tempDir } from '../support/tools';
import { O3 } from './support';

const source = path.join(__dirname, 'fixtures', 'partial-write.c');
const tsopt = path.join(repoRoot, 'bin', 'tsopt.js');
const work = tempDir('tsopt-delicm-partial-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function through(passes: string): { text: string; exe: string; from: unknown[]; stats: Record<string, number> } {
  const report = path.join(work, 'report.json');
  const text = runOk('node', [tsopt, `--passes=${passes}`, '--verify-each', '--no-post', '-S', `--report=${report}`], compileToIr(source, O3)).toString();
  const ll = path.join(work, 'partial.ll');
  fs.writeFileSync(ll, text);
  const exe = path.join(work, 'partial');
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', `${exe}.o`, ll]);
  runOk('clang-14', [`${exe}.o`, '-o', exe]);
  const r = JSON.parse(fs.readFileSync(report, 'utf8')) as { functions: { name: string; scops: { fastPathFrom?: string }[] }[]; pipeline: { stats: Record<string, number> } };
  return { text, exe, from: r.functions.find((f) => f.name === 'kernel_partial')!.scops.map((s) => s.fastPathFrom), stats: r.pipeline.stats };
}

test('t lives in B[i] where i % 3 == 0: stored there under that condition, same output as clang -O3', () => {
  const { text, exe, from, stats } = through('delicm,versioning');
  expect(from).toEqual(['delicm']);
  // The host prefixes the pass's name once.
  expect(stats).toMatchObject({ 'delicm.mapped-scalars': 1, 'delicm.scalar-writes-removed': 1 });
  expect(Object.keys(stats).filter((k) => k.startsWith('delicm.delicm.'))).toEqual([]);
  const fn = /define [^\n]*@kernel_partial\([\s\S]*?\n}\n/.exec(text)![0];
  expect(fn).toMatch(/br i1 %\d+, label %tsopt\.scop0\.mapped\.store, label %tsopt\.scop0\.mapped\.merge/);
  expect(fn).not.toMatch(/(phiops|s2a)\d* = alloca/);
  const reference = path.join(work, 'partial.ref');
  runOk('clang-14', ['-O3', source, '-o', reference]);
  for (const n of ['1', '2', '3', '10', '100']) expect(runOk(exe, [n]).toString()).toBe(runOk(reference, [n]).toString());
}, 60_000);

test('print<delicm> computes DeLICM but applies nothing: versioning generates from the plain model', () => {
  expect(through('print<delicm>,versioning').from).toEqual(['model']);
}, 60_000);

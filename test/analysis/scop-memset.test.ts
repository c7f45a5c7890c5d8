// `llvm.memset` in SCoPs (--scop-memset, ScopDetectionOptions.memset): -O3 turns a
// zero-initialising loop (`for (j) y[j] = 0;`) into a memset, which, as a call, splits
// atax, bicg, 2mm and 3mm. Polly models it as a write of a byte range; with the option so
// does detection, recording the access with `range.lengthBytes`. Default off: the model
// does not build range accesses yet.
import * as path from 'node:path';
import { calledFunction, type IrFunction } from '../../ir';
import { compileC, fn, analyses, fixturesDir } from './helpers';
import { detectScops, scopDetectionAnalysis, scopDetectionFor, scopDetectionWithMemsetAnalysis } from '../../analysis/scop-detection';
import { printScev } from '../../analysis/scev';
import { compileToIr, kernelsDir, run, tempDir } from '../support/tools';
import * as fs from 'node:fs';

const memsets = (f: IrFunction) => f.blocks.flatMap((b) => b.instructions).filter((i) => i.opcode === 'call' && /^llvm\.memset\./.test(calledFunction(i)?.name ?? ''));

/** Kernel (flat build) -> SCoPs in the kernel function without and with memsets. */
const kernels: Record<string, { fn: string; without: number; with: number }> = {
  atax: { fn: 'kernel_atax', without: 1, with: 1 },
  bicg: { fn: 'kernel_bicg', without: 1, with: 1 },
  '2mm': { fn: 'kernel_2mm', without: 2, with: 1 },
  '3mm': { fn: 'kernel_3mm', without: 3, with: 3 },
};

test.each(Object.keys(kernels))('%s: with memsets accepted, every memset of the kernel lies in a SCoP as a range write; without, none does', (kernel) => {
  const want = kernels[kernel]!;
  const f = fn(compileC(`kernels/${kernel}.c`), want.fn);
  const calls = memsets(f);
  expect(calls.length).toBeGreaterThan(0);
  const am = analyses();
  const off = am.get(scopDetectionAnalysis, f);
  const on = am.get(scopDetectionWithMemsetAnalysis, f);
  expect([off.scops.length, on.scops.length]).toEqual([want.without, want.with]);
  const accessed = (r: typeof on) => r.scops.flatMap((s) => s.statements.flatMap((st) => st.accesses)).filter((a) => a.range !== undefined);
  expect(accessed(off)).toEqual([]);
  const ranges = accessed(on);
  expect(new Set(ranges.map((a) => a.instruction))).toEqual(new Set(calls.filter((c) => on.scops.some((s) => s.blocks.includes(c.parent!)))));
  for (const a of ranges) expect([a.kind, a.elementBytes, a.subscripts]).toEqual(['write', 1, undefined]);
  // No SCoP lost, and the memsets only extend them: no call rejection left that is a memset.
  expect(on.rejections.filter((r) => /llvm\.memset/.test(r.detail))).toEqual([]);
  // An array cleared by memset and then read and written keeps its element size.
  for (const s of on.scops) for (const a of s.arrays) expect(a.elementBytes).toBe(8);
});

test('atax: y = 0 as a memset of 8*n bytes joins the SCoP, which now starts at it (as Polly\'s does)', () => {
  const f = fn(compileC('kernels/atax.c', ['-fno-discard-value-names']), 'kernel_atax');
  const r = detectScops(f, analyses(), { memset: true });
  expect(r.scops).toHaveLength(1);
  const write = r.scops[0]!.statements.flatMap((s) => s.accesses).find((a) => a.range)!;
  expect([write.baseName, printScev(write.offset), printScev(write.range!.lengthBytes), write.form]).toEqual(['%y', '0', '(8 * (zext i32 %n to i64))<nuw><nsw>', 'affine']);
  expect(r.scops[0]!.statements[0]!.block).toBe(write.instruction.parent);
});

test('a memset per row inside a loop is a polynomial range write; one whose length is data is rejected as non-affine', () => {
  const m = compileC(path.join(fixturesDir, 'memset.c'));
  const rows = detectScops(fn(m, 'memset_rows'), analyses(), { memset: true });
  expect(rows.scops).toHaveLength(1);
  const inLoop = rows.scops[0]!.statements.flatMap((s) => s.accesses).filter((a) => a.range && a.form === 'polynomial');
  expect(inLoop.map((a) => `${printScev(a.offset)} ${printScev(a.range!.lengthBytes)}`)).toEqual([
    expect.stringMatching(/^\{0,\+,\(8 \* \(sext i32 %\d+ to i64\)\)\}<%\d+> \(8 \* \(sext i32 %\d+ to i64\)\)<nsw>$/),
  ]);
  const data = detectScops(fn(m, 'memset_data'), analyses(), { memset: true });
  expect(data.scops).toEqual([]);
  expect(data.rejections.length).toBeGreaterThan(0);
  expect(data.rejections.every((r) => r.cause === 'non-affine-access' && /^memset length .* is not affine$/.test(r.detail))).toBe(true);
  // Without the option the memset is a call, as before.
  expect(detectScops(fn(m, 'memset_rows'), analyses()).rejections.map((r) => r.cause)).toContain('function-call');
});

test('the option selects the analysis: --scop-memset (or =true) on, absent or =false off', () => {
  expect(scopDetectionFor(undefined)).toBe(scopDetectionAnalysis);
  expect(scopDetectionFor(new Map([['scop-memset', 'false']]))).toBe(scopDetectionAnalysis);
  expect(scopDetectionFor(new Map([['scop-memset', 'true']]))).toBe(scopDetectionWithMemsetAnalysis);
});

test('tsopt --passes=print<scop-statements> --scop-memset prints the range write', () => {
  const dir = tempDir();
  const file = path.join(dir, 'atax.bc');
  fs.writeFileSync(file, compileToIr(path.join(kernelsDir, 'atax.c'), ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-fno-discard-value-names', `-I${kernelsDir}`]));
  const on = run('node', [path.join(__dirname, '../../bin/tsopt.js'), file, '--passes=print<scop-statements>', '--scop-memset', '--no-post', '-o', '/dev/null']);
  const off = run('node', [path.join(__dirname, '../../bin/tsopt.js'), file, '--passes=print<scop-statements>', '--no-post', '-o', '/dev/null']);
  fs.rmSync(dir, { recursive: true });
  expect([on.status, off.status]).toEqual([0, 0]);
  expect(on.stderr).toContain('      write %y (8 * (zext i32 %n to i64))<nuw><nsw> bytes +0 (affine)');
  expect(off.stderr).not.toContain(' bytes +');
});

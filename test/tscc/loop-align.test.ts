// tscc aligns innermost loops to 64 bytes in its codegen step (cli/tscc-loop-align.ts): with
// llc's 16 bytes, whether a short hot loop crosses a 64-byte fetch window depended on where its
// function landed, and TSVC's s277, left alone by tsopt in a file whose other functions kept fast
// paths, compiled to clang's instructions and ran 0.49x clang -O3 from that alone. Over jacobi-2d
// (fast paths kept): tscc's assembly aligns every innermost loop of the kernel to 64 bytes where
// clang -O3's aligns none, the user's -falign-loops wins, and the program prints what clang -O3's
// build prints. A file tsopt leaves as it was (tsvc-guard, s277's shape, alone) is compiled by
// clang -O3 itself (cli/outcome.ts), so its assembly is clang's, alignment and all.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loopAlignFlags } from '../../cli/tscc-loop-align';
import { parseCommand } from '../../cli/tscc-args';
import { findKernel } from '../support/kernels';
import { tsccAndClangOutputs } from './support';
import { kernelsDir, repoRoot, runOk, tempDir } from '../support/tools';

const tscc = path.join(repoRoot, 'bin', 'tscc.js');
const work = tempDir('tsopt-loop-align-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const kernel = findKernel('jacobi-2d');
const unchangedKernel = findKernel('tsvc-guard');

const flagsOf = (...argv: string[]): string[] => loopAlignFlags(parseCommand([...argv, '-c', 'k.c']), argv);

test('innermost loops are aligned to 64 bytes on x86 unless the user chose an alignment, optimizes for size or targets another architecture', () => {
  const align = ['-mllvm', '-x86-experimental-pref-innermost-loop-alignment=6'];
  if (process.arch === 'x64') expect(flagsOf('-O3', '-march=native')).toEqual(align);
  expect(flagsOf('-O2', '-target', 'x86_64-linux-gnu')).toEqual(align);
  expect(flagsOf('-O3', '--target=i686-linux-gnu')).toEqual(align);
  expect(flagsOf('-O3', '--target=aarch64-linux-gnu')).toEqual([]);
  expect(flagsOf('-Os', '--target=x86_64-linux-gnu')).toEqual([]);
  expect(flagsOf('-Oz', '--target=x86_64-linux-gnu')).toEqual([]);
  expect(flagsOf('-O3', '-falign-loops=16', '--target=x86_64-linux-gnu')).toEqual([]);
  expect(flagsOf('-O3', '-fno-align-loops', '--target=x86_64-linux-gnu')).toEqual([]);
  expect(flagsOf('-O3', '-mllvm', '-align-loops=32', '--target=x86_64-linux-gnu')).toEqual([]);
});

/** Per kernel function of the assembly: its innermost loops' headers, and the loops (by header) of its 64-byte-aligned blocks. */
function alignedLoops(asm: string): Map<string, { inner: Set<string>; aligned64: string[] }> {
  const out = new Map<string, { inner: Set<string>; aligned64: string[] }>();
  const lines = asm.split('\n');
  let fn: { inner: Set<string>; aligned64: string[] } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const start = /^(kernel_\w+):/.exec(lines[i]!);
    if (start) out.set(start[1]!, (fn = { inner: new Set(), aligned64: [] }));
    if (lines[i]!.startsWith('.Lfunc_end')) fn = undefined;
    if (fn === undefined) continue;
    const label = /^\.L(BB\d+_\d+):(.*)$/.exec(lines[i]!);
    if (!label) continue;
    // The block's comments: on the label's line and the comment-only lines after it.
    let comments = label[2]!;
    for (let j = i + 1; j < lines.length && /^\s+#/.test(lines[j]!); j++) comments += lines[j];
    if (/=>\s*This Inner Loop Header/.test(comments)) fn.inner.add(label[1]!);
    if (/^\s*\.p2align\s+6\b/.test(lines[i - 1] ?? '')) {
      const loop = /in Loop: Header=(BB\d+_\d+)/.exec(comments)?.[1] ?? (/=>\s*This (Inner )?Loop Header/.test(comments) ? label[1]! : 'not in a loop');
      fn.aligned64.push(loop);
    }
  }
  return out;
}

function assembly(cc: string[], extra: string[], name: string, source = kernel.path): string {
  const out = path.join(work, `${name}.s`);
  runOk(cc[0]!, [...cc.slice(1), '-O3', '-march=native', ...extra, `-I${kernelsDir}`, '-S', source, '-o', out]);
  return fs.readFileSync(out, 'utf8');
}

test("tscc's assembly of jacobi-2d aligns each kernel's innermost loops to 64 bytes, and only those; clang -O3's and tscc's with -falign-loops=16 align none", () => {
  const tsccAsm = alignedLoops(assembly([process.execPath, tscc], [], 'tscc'));
  expect([...tsccAsm.keys()].sort()).toEqual(['kernel_jacobi_2d']);
  for (const [name, f] of tsccAsm) {
    expect({ name, innermost: f.inner.size > 0 }).toEqual({ name, innermost: true });
    expect({ name, aligned: [...new Set(f.aligned64)].sort() }).toEqual({ name, aligned: [...f.inner].sort() });
  }
  for (const [label, asm] of [['clang', assembly(['clang-14'], [], 'clang')], ['tscc-16', assembly([process.execPath, tscc], ['-falign-loops=16'], 'tscc-16')]] as const) {
    for (const [name, f] of alignedLoops(asm)) expect({ label, name, aligned: f.aligned64 }).toEqual({ label, name, aligned: [] });
  }
}, 300_000);

test("tscc's assembly of tsvc-guard, which tsopt leaves as it was, is clang -O3's", () => {
  expect(assembly([process.execPath, tscc], [], 'guard-tscc', unchangedKernel.path)).toEqual(assembly(['clang-14'], [], 'guard-clang', unchangedKernel.path));
}, 300_000);

test("tscc's build of jacobi-2d prints what clang -O3's build prints", () => {
  const { tscc: ours, clang } = tsccAndClangOutputs(kernel, work);
  expect(ours).toEqual(clang);
}, 300_000);

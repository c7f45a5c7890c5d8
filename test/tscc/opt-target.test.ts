// tsopt runs its post pipeline (opt-14's vectorizers and unroller) with the relocation model
// clang compiled the module for (ir/opt-target.ts): with opt's default static target machine,
// a global's address plus an index counted as free, loop bodies weighed less than under clang
// -O3's position-independent one, and the unroller unrolled TSVC's s276 by 50 where clang -O3
// unrolls it by 40. Over tsvc-select (s276's shape, a loop tsopt leaves alone): the module's
// "PIC Level" flag gives the option, tscc's assembly of the kernel is clang -O3's instruction
// for instruction both position-independent and not, and the program prints what clang -O3's
// build prints.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { optTargetArgs } from '../../ir/opt-target';
import { findKernel } from '../support/kernels';
import { kernelsDir, repoRoot, runOk, tempDir } from '../support/tools';
import { tsccAndClangOutputs } from './support';

const tscc = path.join(repoRoot, 'bin', 'tscc.js');
const work = tempDir('tsopt-opt-target-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const kernel = findKernel('tsvc-select');

function compile(cc: string[], flags: string[], name: string): string {
  const out = path.join(work, name);
  runOk(cc[0]!, [...cc.slice(1), '-O3', '-march=native', ...flags, `-I${kernelsDir}`, kernel.path, '-o', out]);
  return fs.readFileSync(out, 'utf8');
}

test('opt is told the position-independent relocation model exactly when clang compiled the module so', () => {
  expect(optTargetArgs(compile(['clang-14'], ['-fPIE', '-S', '-emit-llvm'], 'pie.ll'))).toEqual(['-relocation-model=pic']);
  expect(optTargetArgs(compile(['clang-14'], ['-fPIC', '-S', '-emit-llvm'], 'pic.ll'))).toEqual(['-relocation-model=pic']);
  expect(optTargetArgs(compile(['clang-14'], ['-fno-pic', '-S', '-emit-llvm'], 'static.ll'))).toEqual([]);
}, 120_000);

/** The instructions of `fn` in an assembly file: labels, comments and directives (tscc aligns loops otherwise) dropped, block labels renamed. */
function instructionsOf(asm: string, fn: string): string[] {
  const lines = asm.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`${fn}:`));
  if (start < 0) throw new Error(`no ${fn} in the assembly`);
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('.Lfunc_end')) break;
    const text = line.replace(/#.*$/, '').trim();
    if (text === '' || text.startsWith('.') || text.endsWith(':')) continue;
    out.push(text.replace(/\.LBB\d+_\d+/g, '.LBB').replace(/\.LCPI\d+_\d+/g, '.LCPI'));
  }
  return out;
}

test.each([
  ['position-independent', '-fPIE'],
  ['static', '-fno-pic'],
])("tscc's assembly of the kernel is clang -O3's (%s)", (_label, flag) => {
  const clang = instructionsOf(compile(['clang-14'], [flag, '-S'], `clang${flag}.s`), 'kernel_select_mid');
  const ours = instructionsOf(compile([process.execPath, tscc], [flag, '-S'], `tscc${flag}.s`), 'kernel_select_mid');
  expect(clang.length).toBeGreaterThan(0);
  expect(ours).toEqual(clang);
}, 300_000);

test("tscc's build of tsvc-select prints what clang -O3's build prints", () => {
  const { tscc: ours, clang } = tsccAndClangOutputs(kernel, work);
  expect(ours).toEqual(clang);
}, 300_000);

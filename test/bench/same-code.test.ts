// The bench's same-code control (bench/same-code.ts) on real builds of one of our kernels: code
// that only moved (loops padded to 64 bytes, as tscc's codegen step pads them) is the same code,
// code compiled otherwise (not vectorized) is not.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { disassemble, functionBodies, normalizeInstruction, sameCode, sameCodeLine, type FunctionBody } from '../../bench/same-code';
import { repoRoot, tempDir } from '../support/tools';

const kernels = path.join(repoRoot, 'test', 'kernels');
const out = tempDir('tsopt-same-code-');
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

const FUNCTIONS = ['kernel_stride2_recurrence', 'kernel_stride2_store', 'main'];

function buildAndDisassemble(name: string, flags: string[]): { code: Map<string, FunctionBody>; raw: string } {
  const exe = path.join(out, name);
  const r = spawnSync('clang-14', ['-O3', ...flags, '-I', kernels, path.join(kernels, 'tsvc-stride2.c'), '-o', exe], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  const code = disassemble(exe);
  if ('error' in code) throw new Error(code.error);
  return { code, raw: spawnSync('objdump', ['-d', '--no-show-raw-insn', exe], { encoding: 'utf8' }).stdout };
}

/** A function's lines in objdump's text. */
const rawFunction = (raw: string, name: string) => raw.split('\n\n').find((b) => b.includes(`<${name}>:`)) ?? '';

test('code padded and moved is the same code; code compiled otherwise is not', () => {
  const plain = buildAndDisassemble('plain', []);
  const padded = buildAndDisassemble('padded', ['-mllvm', '-x86-experimental-pref-innermost-loop-alignment=6']);
  const scalar = buildAndDisassemble('scalar', ['-fno-vectorize']);
  // The padding moved every function's branches and added nops: the text differs.
  for (const f of FUNCTIONS) expect(rawFunction(padded.raw, f)).not.toEqual(rawFunction(plain.raw, f));
  expect(rawFunction(padded.raw, 'kernel_stride2_recurrence')).toMatch(/\bnop/);
  expect([...sameCode(plain.code, padded.code, FUNCTIONS)].sort()).toEqual([...FUNCTIONS].sort());
  // Without the vectorizer the kernels are other instructions.
  const same = sameCode(plain.code, scalar.code, FUNCTIONS);
  expect(same.has('kernel_stride2_recurrence')).toBe(false);
  expect(same.has('kernel_stride2_store')).toBe(false);
  // A name in neither build is not the same code.
  expect(sameCode(plain.code, padded.code, ['no_such_function']).size).toBe(0);
}, 60_000);

test('an instruction is kept without its addresses; padding is dropped', () => {
  expect(normalizeInstruction('jne    1260 <s000+0x80>')).toBe('jne <s000>');
  expect(normalizeInstruction('call   66020 <initialise_arrays>')).toBe('call <initialise_arrays>');
  expect(normalizeInstruction('lea    0x1bfede(%rip),%rbx        # 1d24c0 <aa>')).toBe('lea <aa>(%rip),%rbx');
  expect(normalizeInstruction('vmovss 0x1bfe(%rip),%xmm0        # 1d24c8 <aa+0x8>')).toBe('vmovss <aa+0x8>(%rip),%xmm0');
  expect(normalizeInstruction('lea    0x11c955(%rip),%rdi        # 12ef1a <_IO_stdin_used+0x3f1a>')).toBe('lea <_IO_stdin_used>(%rip),%rdi');
  expect(normalizeInstruction('data16 data16 cs nopw 0x0(%rax,%rax,1)')).toBeUndefined();
  expect(normalizeInstruction('xchg   %ax,%ax')).toBeUndefined();
  expect(normalizeInstruction('vaddss -0xc800(%rax,%rsi,1),%xmm0,%xmm0')).toBe('vaddss -0xc800(%rax,%rsi,1),%xmm0,%xmm0');
  expect(sameCodeLine('tscc', { same: ['s000', 's111'], sameGeomean: 0.998, changedGeomean: 1.5 }, 3)).toBe("tscc: 2 of 3 compile to clang -O3's machine code (geomean 1.00x: the run's noise), the other 1 1.50x");
});

// Two builds of one function in objdump's form: the set-up before the loop is scheduled otherwise
// (the zeroing of %r12d three places earlier, as in tscc's build of TSVC's s000), which is the
// same code; the same zeroing moved into the loop's block is not.
const objdump = (setup: string[], loop: string[]) =>
  [
    '0000000000001200 <f>:',
    ...setup.map((ins, i) => `    ${(0x1200 + 4 * i).toString(16)}:\t${ins}`),
    ...loop.map((ins, i) => `    ${(0x1280 + 4 * i).toString(16)}:\t${ins}`),
    `    12c0:\tjne    1280 <f+0x80>`,
    `    12c4:\tret`,
  ].join('\n');

test('the same instructions in each basic block in another order are the same code; moved across blocks they are not', () => {
  const setup = ['call   1050 <clock_gettime@plt>', 'lea    0x19088d(%rip),%r15        # 1d64c0 <b>', 'lea    0x19088d(%rip),%r13        # 1d64c0 <d>', 'xor    %r12d,%r12d'];
  const loop = ['vmovaps (%r15,%rax,4),%zmm1', 'add    $0x10,%rax', 'cmp    $0x7d00,%rax'];
  const clang = functionBodies(objdump(setup, loop));
  expect(clang.get('f')).toEqual([
    ['call <clock_gettime@plt>', 'lea <b>(%rip),%r15', 'lea <d>(%rip),%r13', 'xor %r12d,%r12d'],
    ['vmovaps (%r15,%rax,4),%zmm1', 'add $0x10,%rax', 'cmp $0x7d00,%rax', 'jne <f>'],
    ['ret'],
  ]);
  const scheduled = functionBodies(objdump([setup[0]!, setup[3]!, setup[1]!, setup[2]!], loop));
  expect(sameCode(clang, scheduled, ['f']).has('f')).toBe(true);
  const intoLoop = functionBodies(objdump(setup.slice(0, 3), ['xor    %r12d,%r12d', ...loop]));
  expect(sameCode(clang, intoLoop, ['f']).has('f')).toBe(false);
});

// The gateway in-process: LLVM's text in, bitcode out, and one-line errors for every bad input.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { InvalidModuleError, TsoptError } from '../../ir/errors';
import { reportFailure } from '../../cli/run';
import { capturingIo } from '../support/cli-io';
import { classifyInput, readInput, runOptPipeline, verifyText, writeOutput } from '../../ir/gateway';
import { assemble, compileToIr, disassemble, kernelsDir, normalizeLlvmText } from '../support/tools';
import { mutate } from './mutate';

const example = path.join(kernelsDir, 'example.c');
const bitcode = compileToIr(example, ['-O3']);
const llvmText = disassemble(bitcode);

/** The error of class `kind` that `body` throws (failing the test when it throws nothing or something else). */
function thrown<E extends Error>(kind: new (message: string) => E, body: () => unknown): E {
  try {
    body();
  } catch (e) {
    if (e instanceof kind) return e;
    throw e;
  }
  throw new Error(`expected a ${kind.name}`);
}

/** The TsoptError `body` throws. */
const rejection = (body: () => unknown): TsoptError => thrown(TsoptError, body);

const BROKEN_SSA = ['define i32 @f() {', 'entry:', '  %x = add i32 %y, 1', '  %y = add i32 %x, 1', '  ret i32 %x', '}', ''].join('\n');

describe('readInput', () => {
  test("gives llvm-dis-14's text for bitcode", () => {
    expect(normalizeLlvmText(readInput(bitcode, 'example.bc'))).toBe(normalizeLlvmText(llvmText));
  });

  test("gives LLVM's printed text for IR text (re-printed, not echoed)", () => {
    const text = compileToIr(example, ['-O1'], true).toString();
    const untidy = text.replace(/\n\n/g, '\n\n\n').replace(/^define /m, '; a comment LLVM drops\ndefine ');
    const printed = readInput(Buffer.from(untidy), 'example.ll');
    expect(printed).not.toContain('a comment LLVM drops');
    expect(normalizeLlvmText(printed)).toBe(normalizeLlvmText(disassemble(assemble(untidy))));
  });

  test.each([
    ['empty input', Buffer.alloc(0), /^empty input/],
    ['random bytes', Buffer.from([0x9f, 0x00, 0x13, 0xee, 0x42, 0x07, 0x00, 0x01]), /^not LLVM bitcode or IR text \(binary data starting with 9f 00 13 ee\)$/],
    ['invalid UTF-8', Buffer.from([0x64, 0x65, 0xff, 0xfe, 0x0a]), /^not LLVM bitcode or IR text/],
    ['truncated bitcode', bitcode.subarray(0, Math.floor(bitcode.length / 3)), /^invalid bitcode: /],
    ['only the magic', bitcode.subarray(0, 4), /^invalid bitcode: /],
    ['a syntax error', Buffer.from('define i32 @f( {\n'), /^invalid IR text: 2:1: expected type$/],
    ['a type error', Buffer.from('define i32 @f() {\n  ret i64 0\n}\n'), /^invalid IR text: 2:7: value doesn't match function result type 'i32'$/],
    ['IR that fails the verifier', Buffer.from(BROKEN_SSA), /^invalid IR text: fails LLVM's verifier: Instruction does not dominate all uses! \(%y = add i32 %x, 1\)$/],
  ])('rejects %s with one line', (_what, bytes, message) => {
    const e = rejection(() => readInput(bytes, 'in.bc'));
    expect(e.message).toMatch(message);
    expect(e.message).not.toContain('\n');
    expect(e.input).toBe('in.bc');
  });

  test('turns a crash of LLVM\'s bitcode reader into an error', () => {
    // Find a mutant that makes opt-14 itself die of a signal (a few percent of them do).
    let crasher: Buffer | undefined;
    for (let seed = 0; seed < 600 && !crasher; seed += 3) {
      const m = mutate(bitcode, seed); // seeds ≡ 0 (mod 3): bit flips
      const r = spawnSync('opt-14', ['-disable-output', '-'], { input: m.bytes });
      if (r.signal) crasher = m.bytes;
    }
    expect(crasher).toBeDefined();
    const e = rejection(() => readInput(crasher as Buffer, 'crash.bc'));
    expect(e.message).toMatch(/^invalid bitcode: LLVM's reader crashed on it \(SIG[A-Z]+\)$/);
  });

  test('classifies by magic bytes, including the bitcode wrapper', () => {
    expect(classifyInput(bitcode)).toBe('bitcode');
    expect(classifyInput(Buffer.from([0xde, 0xc0, 0x17, 0x0b, 0, 0, 0, 0]))).toBe('bitcode');
    expect(classifyInput(Buffer.from('; ModuleID\n'))).toBe('text');
  });
});

describe('verifyText', () => {
  test('accepts a valid module', () => {
    expect(verifyText(llvmText)).toBeUndefined();
  });

  test("gives the verifier's finding in one line", () => {
    expect(verifyText(BROKEN_SSA)).toBe("invalid IR text: fails LLVM's verifier: Instruction does not dominate all uses! (%y = add i32 %x, 1)");
  });

  test('gives parse errors with line:column', () => {
    expect(verifyText('define void @f() {\n  ret i32\n}\n')).toBe('invalid IR text: 3:1: expected value token');
  });
});

describe('writeOutput', () => {
  test('writes bitcode that disassembles to the same text', () => {
    const out = writeOutput(llvmText, 'bc');
    expect(out.subarray(0, 4)).toEqual(Buffer.from([0x42, 0x43, 0xc0, 0xde]));
    expect(normalizeLlvmText(disassemble(out))).toBe(normalizeLlvmText(llvmText));
  });

  test("writes LLVM's own text with -S", () => {
    expect(normalizeLlvmText(writeOutput(llvmText, 'll').toString())).toBe(normalizeLlvmText(llvmText));
  });

  test('llvm-bindings in process and one LLVM tool in a child (the default) write the same bytes', () => {
    expect(writeOutput(llvmText, 'bc', 'k.ll', 'llvm-as-14').equals(writeOutput(llvmText, 'bc', 'k.ll', 'llvm-bindings'))).toBe(true);
    expect(writeOutput(llvmText, 'll', 'k.ll', 'llvm-as-14').toString()).toBe(writeOutput(llvmText, 'll', 'k.ll', 'llvm-bindings').toString());
    for (const format of ['bc', 'll'] as const) {
      expect(thrown(InvalidModuleError, () => writeOutput(BROKEN_SSA, format, '<stdin>', 'llvm-as-14')).message).toMatch(/^tsopt produced an invalid module: invalid IR text: fails LLVM's verifier: /);
      expect(thrown(InvalidModuleError, () => writeOutput('this is not IR', format, '<stdin>', 'llvm-as-14')).message).toMatch(/^tsopt produced an invalid module: invalid IR text: 1:1: /);
    }
  });

  test('the default encoder does not load llvm-bindings; the in-process one does', () => {
    // A fresh Node process of the built gateway: which modules writing each way loaded.
    const gateway = path.join(__dirname, '..', '..', 'dist', 'ir', 'gateway.js');
    const loaded = (encoder: string): string => {
      const script = `const g = require(${JSON.stringify(gateway)}); const t = require('node:fs').readFileSync(0, 'utf8');
        g.writeOutput(t, 'bc', 'k.ll', ${encoder}); g.writeOutput(t, 'll', 'k.ll', ${encoder});
        process.stdout.write(String(Object.keys(require.cache).some((k) => k.includes('llvm-bindings'))));`;
      const r = spawnSync(process.execPath, ['-e', script], { input: llvmText, encoding: 'utf8' });
      expect(r.stderr).toBe('');
      return r.stdout;
    };
    expect(loaded('undefined')).toBe('false');
    expect(loaded("'llvm-bindings'")).toBe('true');
  });

  test("opt-14 reads tsopt's printed text itself: the bitcode of the encoded text, and a refusal is tsopt's bug", () => {
    const encoded = writeOutput(llvmText, 'bc');
    expect(disassemble(runOptPipeline(llvmText, 'globaldce', 'bc'))).toBe(disassemble(runOptPipeline(encoded, 'globaldce', 'bc')));
    expect(thrown(InvalidModuleError, () => runOptPipeline(BROKEN_SSA, 'globaldce', 'bc')).message).toMatch(/^tsopt produced an invalid module: invalid IR text: fails LLVM's verifier: /);
    expect(thrown(InvalidModuleError, () => runOptPipeline('this is not IR', 'globaldce', 'bc')).message).toMatch(/^tsopt produced an invalid module: invalid IR text: 1:1: /);
    // Bitcode opt cannot run is not our text: the error it always was.
    expect(rejection(() => runOptPipeline(encoded, 'no-such-pass', 'bc')).message).toMatch(/^opt-14 post pipeline failed: /);
  });

  test('refuses a module that does not verify, without crashing: a tsopt bug, exit 2', () => {
    const invalid = (body: () => unknown): InvalidModuleError => thrown(InvalidModuleError, body);
    const e = invalid(() => writeOutput(BROKEN_SSA, 'bc'));
    expect(e.message).toMatch(/^tsopt produced an invalid module: invalid IR text: fails LLVM's verifier: /);
    expect(invalid(() => writeOutput('this is not IR', 'bc')).message).toMatch(/^tsopt produced an invalid module: invalid IR text: 1:1: /);
    const io = capturingIo();
    expect(reportFailure(e, io.io, 'k.bc')).toBe(2);
    expect(io.stderr()).toMatch(/^tsopt: internal error: k\.bc: tsopt produced an invalid module: invalid IR text: fails LLVM's verifier: [^\n]+\n$/);
  });
});

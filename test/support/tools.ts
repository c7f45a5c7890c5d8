// Running the LLVM 14 toolchain from tests: compile our C kernels, disassemble, assemble.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// From dist/test/support when a script is run compiled (test/robustness/mutants-scale.ts).
const up = path.resolve(__dirname, '..', '..');
export const repoRoot = path.basename(up) === 'dist' ? path.dirname(up) : up;
export const kernelsDir = path.join(repoRoot, 'test', 'kernels');

/** A fresh directory under the OS temp dir, removed by the caller (or left for post-mortems). */
export function tempDir(prefix = 'tsopt-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface ToolResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs a program, never throwing on a non-zero exit: tests look at what came back. */
export function run(cmd: string, args: readonly string[], input?: Buffer | string, cwd?: string): ToolResult {
  const r = spawnSync(cmd, args, { input, cwd, maxBuffer: 1 << 30 });
  if (r.error) throw r.error;
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr.toString() };
}

/** Like `run`, but throws with the tool's stderr when it fails. */
export function runOk(cmd: string, args: readonly string[], input?: Buffer | string, cwd?: string): Buffer {
  const r = run(cmd, args, input, cwd);
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${r.stderr}`);
  }
  return r.stdout;
}

/** clang-14 on one C or C++ file to LLVM bitcode (or text with `text: true`). */
export function compileToIr(source: string, flags: readonly string[], text = false): Buffer {
  const args = [...flags, '-emit-llvm', text ? '-S' : '-c', source, '-o', '-'];
  const lang = /\.(cc|cpp|cxx)$/.test(source) ? 'clang++-14' : 'clang-14';
  return runOk(lang, args);
}

/** llvm-dis-14 of bitcode bytes. */
export function disassemble(bitcode: Buffer): string {
  return runOk('llvm-dis-14', ['-', '-o', '-'], bitcode).toString();
}

/** llvm-as-14 of textual IR; throws with LLVM's message when the text does not parse or verify. */
export function assemble(text: string): Buffer {
  return runOk('llvm-as-14', ['-', '-o', '-'], text);
}

/**
 * The text LLVM prints for a module, normalized for comparing round trips:
 * without the `; ModuleID` line and `; preds = …` comments, whose order follows use lists.
 */
export function normalizeLlvmText(text: string): string {
  return text
    .split('\n')
    .filter((line) => !line.startsWith('; ModuleID'))
    .map((line) => line.replace(/\s*; preds = .*$/, ''))
    .join('\n');
}

export function hasTool(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
}

export { execFileSync };

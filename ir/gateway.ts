// The bitcode gateway: the one module that talks to LLVM (llvm-bindings and the LLVM 14 tools).
//
// Why reading goes through a child process: LLVM's readers are not safe on hostile input.
// On mutated bitcode `opt-14` itself aborts or segfaults now and then (about 4% of bit
// flips in a quick run here), and llvm-bindings 0.4.2 is worse: `parseIRFile` returns a
// wrapper around a null module when parsing fails, its `SMDiagnostic` has no accessors (the
// message never reaches JavaScript), and the first method call on that wrapper segfaults.
// So every byte we did not print ourselves is read and verified by `opt-14` in a child
// process first, whose crash becomes a one-line error; and llvm-bindings only ever parses
// text that `llvm-as-14` has already accepted.
//
// Writing: one child verifies and writes our printed module: `llvm-as-14` for bitcode, `opt-14 -S`
// for text (both run LLVM's verifier on what they parse). The guard above means llvm-bindings
// can never save that child: it may only parse what a child already accepted, and the child that
// accepts can as well write. So llvm-bindings' in-process encoder (the `llvm-bindings` encoder,
// which writes the same bytes, tested) is no longer the default, and the addon (about 20 ms of CPU
// to load) is loaded only when that encoder is asked for.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as LlvmBindings from 'llvm-bindings';
import { InvalidModuleError, TsoptError } from './errors';

export type OutputFormat = 'bc' | 'll';

/** 'BC' 0xC0DE: raw LLVM bitcode. */
const BITCODE_MAGIC = Buffer.from([0x42, 0x43, 0xc0, 0xde]);
/** 0x0B17C0DE little-endian: the bitcode wrapper header (Darwin-style). */
const WRAPPER_MAGIC = Buffer.from([0xde, 0xc0, 0x17, 0x0b]);

/** Large modules take time to read; hostile ones must not hang us forever. */
function readerTimeoutMs(bytes: number): number {
  return 60_000 + Math.ceil(bytes / 1e6) * 10_000;
}

export type InputKind = 'bitcode' | 'text';

/** What the bytes claim to be; throws for input that is neither bitcode nor text. */
export function classifyInput(bytes: Buffer): InputKind {
  if (bytes.length === 0) throw new TsoptError('empty input (expected LLVM bitcode or IR text)');
  const head = bytes.subarray(0, 4);
  if (head.equals(BITCODE_MAGIC) || head.equals(WRAPPER_MAGIC)) return 'bitcode';
  if (bytes.includes(0) || !isUtf8(bytes)) {
    const shown = [...head].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new TsoptError(`not LLVM bitcode or IR text (binary data starting with ${shown})`);
  }
  return 'text';
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * LLVM's own printed text of the module in `bytes` (bitcode or IR text), after LLVM's
 * verifier accepted it. Throws `TsoptError` with a one-line reason for anything else.
 * `warn` receives LLVM's warnings (e.g. "ignoring invalid debug info").
 */
export function readInput(bytes: Buffer, inputName: string, warn?: (message: string) => void): string {
  let kind: InputKind;
  try {
    kind = classifyInput(bytes);
  } catch (e) {
    throw e instanceof TsoptError ? new TsoptError(e.message, inputName) : e;
  }
  // -disable-debug-info-type-map: opt otherwise uniques C++ ODR debug types (those with an
  // `identifier:`) across the context and prints them `distinct`, so its text would differ
  // from llvm-dis's and --passes=none would not be the identity on C++ with -g.
  const r = runLlvmTool('opt-14', ['-S', '-disable-debug-info-type-map', '-o', '-', '-'], bytes, readerTimeoutMs(bytes.length));
  const what = kind === 'bitcode' ? 'invalid bitcode' : 'invalid IR text';
  if (r.signal) {
    throw new TsoptError(
      r.signal === 'SIGTERM'
        ? `${what}: LLVM's reader did not finish within ${readerTimeoutMs(bytes.length) / 1000} s`
        : `${what}: LLVM's reader crashed on it (${r.signal})`,
      inputName,
    );
  }
  if (r.status !== 0) throw new TsoptError(summarizeLlvmError(r.stderr, what), inputName);
  for (const line of llvmWarnings(r.stderr)) warn?.(line);
  return r.stdout.toString('utf8');
}

/**
 * LLVM's verdict on a printed module: undefined when it parses and verifies,
 * otherwise one line saying what is wrong (a parse error with line:column, or the verifier's message).
 */
export function verifyText(text: string): string | undefined {
  return assemble(text, ['--disable-output']).problem;
}

/**
 * `text` through llvm-as-14 (which parses and verifies it) with `args`: its output, or one line
 * saying what is wrong.
 */
function assemble(text: string, args: readonly string[]): { problem: string | undefined; stdout: Buffer } {
  const r = runLlvmTool('llvm-as-14', [...args, '-'], text, readerTimeoutMs(text.length));
  if (r.signal) return { problem: `LLVM's assembler crashed on it (${r.signal})`, stdout: r.stdout };
  if (r.status !== 0) return { problem: summarizeLlvmError(r.stderr, 'invalid IR text'), stdout: r.stdout };
  return { problem: undefined, stdout: r.stdout };
}

/** `llvm-bindings`: a child verifies, then the addon parses and writes in process; `llvm-as-14`: one child does both. */
export type Encoder = 'llvm-bindings' | 'llvm-as-14';

/**
 * Verifies `text` (our printer's output) with LLVM's verifier and returns bitcode, or LLVM's
 * re-printed text for `ll` (whose `; ModuleID` line names `moduleId`, as opt -S names its input).
 * Throws `InvalidModuleError` (a tsopt bug, exit 2) when the text does not verify. `encoder`: one
 * LLVM tool in a child (the default), or llvm-bindings in process after a child verified the text.
 */
export function writeOutput(text: string, format: OutputFormat, moduleId = '<stdin>', encoder: Encoder = 'llvm-as-14'): Buffer {
  return encoder === 'llvm-bindings' ? encodeInProcess(text, format, moduleId) : encodeInChild(text, format, moduleId);
}

/** The addon, loaded on first use: tsopt's runs that never encode in process do not pay its load. */
function llvmBindings(): typeof LlvmBindings {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  return require('llvm-bindings') as typeof LlvmBindings;
}

function encodeInProcess(text: string, format: OutputFormat, moduleId: string): Buffer {
  const problem = verifyText(text);
  if (problem !== undefined) throw new InvalidModuleError(`tsopt produced an invalid module: ${problem}`);
  const llvm = llvmBindings();
  return withTempDir((dir) => {
    const llFile = path.join(dir, 'module.ll');
    fs.writeFileSync(llFile, text);
    const context = new llvm.LLVMContext();
    // Safe only because llvm-as-14 accepted the same text above (see the top of this file).
    const module = llvm.parseIRFile(llFile, new llvm.SMDiagnostic(), context);
    if (llvm.verifyModule(module)) {
      throw new Error('llvm-bindings rejected a module that llvm-as-14 verified');
    }
    if (format === 'll') {
      module.setModuleIdentifier(moduleId);
      return Buffer.from(module.print(), 'utf8');
    }
    const bcFile = path.join(dir, 'module.bc');
    llvm.WriteBitcodeToFile(module, bcFile);
    return fs.readFileSync(bcFile);
  });
}

function encodeInChild(text: string, format: OutputFormat, moduleId: string): Buffer {
  if (format === 'bc') {
    // llvm-as-14 verifies and encodes in one run. Without use-list orders, as LLVM's
    // WriteBitcodeToFile writes by default, so both encoders write the same bytes.
    const { problem, stdout } = assemble(text, ['--preserve-bc-uselistorder=false', '-o', '-']);
    if (problem !== undefined) throw new InvalidModuleError(`tsopt produced an invalid module: ${problem}`);
    return stdout;
  }
  // Text: opt-14 -S prints what it parsed (no passes run), with the flags readInput reads with,
  // after LLVM's verifier accepted it (opt verifies its input, as llvm-as-14 does).
  const r = runLlvmTool('opt-14', ['-S', '-disable-debug-info-type-map', '-o', '-', '-'], text, readerTimeoutMs(text.length));
  if (r.signal) throw new InvalidModuleError(`tsopt produced an invalid module: opt-14 crashed on it (${r.signal})`);
  if (r.status !== 0 && refusedInput(r.stderr)) throw new InvalidModuleError(`tsopt produced an invalid module: ${summarizeLlvmError(r.stderr, 'invalid IR text')}`);
  if (r.status !== 0) throw new InvalidModuleError(`opt-14 could not print a module: ${summarizeLlvmError(r.stderr, 'error')}`);
  const printed = r.stdout.toString('utf8');
  const stdinId = "; ModuleID = '<stdin>'";
  return Buffer.from(printed.startsWith(stdinId) ? `; ModuleID = '${moduleId}'${printed.slice(stdinId.length)}` : printed, 'utf8');
}

/** A remark opt-14 wrote (`-pass-remarks-output`): what a pass of the post pipeline did or did not do. */
export interface OptRemark {
  /** `Passed`, `Missed`, `Analysis`, ... as opt's YAML tags it. */
  readonly kind: string;
  readonly pass: string;
  readonly name: string;
  readonly function: string;
  /** `file:line` when the IR has debug info. */
  readonly location: string | undefined;
  readonly message: string;
}

/**
 * Runs `opt-14 -passes=<pipeline>` on bitcode, or on text tsopt printed itself, and returns
 * bitcode (or text for `ll`). Used for the hand-back to LLVM's vectorizers after our passes.
 * Text goes to opt as it is, with no encode first: opt parses it and runs LLVM's verifier on it
 * before any pass (as llvm-as-14 would), and a module it refuses is a tsopt bug
 * (`InvalidModuleError`, with writeOutput's message). With `remarks`, the remarks of the passes
 * matching `remarks.filter` (a regex on pass names) are appended to `remarks.into`.
 * `targetArgs` (ir/opt-target.ts) give opt the target machine clang compiled the module for.
 */
export function runOptPipeline(input: Buffer | string, pipeline: string, format: OutputFormat, remarks?: { filter: string; into: OptRemark[] }, targetArgs: readonly string[] = []): Buffer {
  const run = (remarksFile?: string): Buffer => {
    const wanted = remarks && remarksFile ? [`-pass-remarks-output=${remarksFile}`, `-pass-remarks-filter=${remarks.filter}`] : [];
    const args = [...targetArgs, `-passes=${pipeline}`, ...wanted, ...(format === 'll' ? ['-S'] : []), '-o', '-', '-'];
    // Our own output, not hostile input: the limit only stops a hang, with room for a busy machine.
    const r = runLlvmTool('opt-14', args, input, readerTimeoutMs(input.length) * 12);
    if (r.signal) throw new TsoptError(`opt-14 -passes=${pipeline} crashed (${r.signal})`);
    if (r.status !== 0 && typeof input === 'string' && refusedInput(r.stderr)) {
      throw new InvalidModuleError(`tsopt produced an invalid module: ${summarizeLlvmError(r.stderr, 'invalid IR text')}`);
    }
    if (r.status !== 0) throw new TsoptError(`opt-14 post pipeline failed: ${summarizeLlvmError(r.stderr, 'error')}`);
    if (remarks && remarksFile && fs.existsSync(remarksFile)) remarks.into.push(...parseOptRemarks(fs.readFileSync(remarksFile, 'utf8')));
    return r.stdout;
  };
  return remarks ? withTempDir((dir) => run(path.join(dir, 'remarks.yaml'))) : run();
}

/** Whether opt-14's stderr says it refused its input: a parse error in it, or the verifier's findings on it. */
function refusedInput(stderr: string): boolean {
  return /input module is broken!/.test(stderr) || /^opt-14: <stdin>:\d+:\d+: error: /m.test(stderr);
}

/** opt's YAML remarks: one document per remark (`--- !Passed` ...), with the fields LLVM writes. */
export function parseOptRemarks(yaml: string): OptRemark[] {
  const unquote = (v: string): string => {
    const t = v.trim();
    if (t.startsWith("'") && t.endsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
    if (t.startsWith('"') && t.endsWith('"')) return JSON.parse(t) as string;
    return t;
  };
  return yaml.split(/^--- !/m).slice(1).map((doc) => {
    const field = (key: string) => unquote(new RegExp(`^${key}:[ \\t]*(.*)$`, 'm').exec(doc)?.[1] ?? '');
    const loc = /^DebugLoc:\s*\{ File: (.*?), Line: (\d+)/m.exec(doc);
    // Top-level `Args:` items only (`  - Key: value`); nested ones are their debug locations.
    const message = [...doc.matchAll(/^ {2}- \w+:[ \t]*(.*)$/gm)].map((m) => unquote(m[1]!)).join('');
    return {
      kind: doc.slice(0, doc.indexOf('\n')).trim(),
      pass: field('Pass'),
      name: field('Name'),
      function: field('Function'),
      location: loc ? `${unquote(loc[1]!)}:${loc[2]}` : undefined,
      message,
    };
  });
}

function runLlvmTool(tool: string, args: string[], input: Buffer | string, timeout: number): SpawnSyncReturns<Buffer> & { stderr: string } {
  const r = spawnSync(tool, args, { input, timeout, maxBuffer: 2 ** 32, killSignal: 'SIGTERM' });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw new TsoptError(`${tool} not found (install LLVM 14: run bin/setup)`);
  }
  if (r.error && !r.signal) throw new TsoptError(`cannot run ${tool}: ${r.error.message}`);
  return Object.assign(r, { stderr: r.stderr.toString('utf8') });
}

/** LLVM's `tool: <stdin>:L:C: error: message` as `L:C: message` (or just the message). */
function stripToolPrefix(line: string): string {
  const m = /^(?:[\w.+-]+: )?(?:<stdin>(?::(\d+):(\d+))?: )?(?:error|warning): (.*)$/.exec(line);
  if (!m) return line.trim();
  return (m[1] !== undefined ? `${m[1]}:${m[2]}: ` : '') + m[3].replace(/ in <stdin>$/, '');
}

/** A line LLVM's tools print about the run itself (`opt-14: ...`), not a verifier finding. */
const TOOL_LINE = /^[\w.+-]+-1\d: /;

/**
 * One line out of LLVM's stderr. The verifier prints its findings before the tool's own
 * "input module is broken!" line, so those come first when present.
 */
export function summarizeLlvmError(stderr: string, what: string): string {
  const lines = stderr.split('\n').map((l) => l.trimEnd()).filter((l) => l.length > 0);
  if (lines.some((l) => /input module is broken!|does not verify as correct/.test(l))) {
    const findings = lines.filter((l) => !TOOL_LINE.test(l));
    const first = findings[0] ?? 'the module is broken';
    const detail = findings[1] !== undefined && /^\s/.test(findings[1]) ? ` (${findings[1].trim()})` : '';
    return `${what}: fails LLVM's verifier: ${first}${detail}`;
  }
  const errorLine = lines.find((l) => / error: /.test(l)) ?? lines[0];
  return `${what}: ${errorLine !== undefined ? stripToolPrefix(errorLine) : 'LLVM gave no reason'}`;
}

function llvmWarnings(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => / warning: /.test(l))
    .map(stripToolPrefix);
}

function withTempDir<T>(body: (dir: string) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsopt-'));
  try {
    return body(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

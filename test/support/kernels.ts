// Our C test kernels (test/kernels/*.c): list them, build and run them, compile them to IR.
// Each kernel describes itself in a `tsopt-kernel:` line of its header comment (see
// test/kernels/README.md), so this file keeps no table of its own.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { compileToIr, runOk } from './tools';

export type KernelCategory = 'polybench' | 'detection' | 'delinearization' | 'delicm' | 'tsvc';

export interface KernelInfo {
  /** File name without `.c`, e.g. `jacobi-2d`. */
  name: string;
  /** Absolute path of the C source. */
  path: string;
  category: KernelCategory;
  /** Default size arguments (the kernel's built-in defaults, spelled out). */
  args: string[];
  /** Other valid size arguments that must change the printed output. */
  altArgs: string[];
  /** Sizes meant for benchmarks. */
  benchArgs: string[];
  /** Whether `-DTSOPT_VLA` builds a different kernel (C99 VLA parameters). */
  hasVla: boolean;
  /** Extra link flags, e.g. `-lm`. */
  libs: string[];
  /** Functions defined in the file, with the 1-based line range of each definition. */
  functions: SourceFunction[];
}

export interface SourceFunction {
  name: string;
  firstLine: number;
  lastLine: number;
  /** Marked `KERNEL` (noinline): the code the passes are meant to look at. */
  isKernel: boolean;
}

const categories: readonly KernelCategory[] = ['polybench', 'detection', 'delinearization', 'delicm', 'tsvc'];

/**
 * The folder holding the kernels' sources. Found by walking up from this file (or else from the
 * working directory), so that the helpers work from ts-jest (test/support) and from tsc's
 * output (dist/test/support) alike.
 */
export const kernelSourceDir: string = (() => {
  for (const start of [__dirname, process.cwd()]) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      const candidate = path.join(dir, 'test', 'kernels');
      if (fs.existsSync(path.join(candidate, 'kernel.h'))) return candidate;
      if (path.dirname(dir) === dir) break;
    }
  }
  throw new Error(`test/kernels/kernel.h not found above ${__dirname} or ${process.cwd()}`);
})();

/** Files in test/kernels that are not ours to list (another engineer's conventions). */
const notOurs = new Set(['example.c']);

function parseList(value: string | undefined): string[] {
  return value === undefined || value === '' ? [] : value.split(',');
}

/** The functions defined at top level: a line at column 0 naming `f(` and not ending in `;`, up to the next `}` at column 0. */
function sourceFunctions(text: string): SourceFunction[] {
  const lines = text.split('\n');
  const found: SourceFunction[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const head = /^(?!#|\s|\/|\*|}|typedef|struct\s+\w+\s*\{)[^=;]*?\b([A-Za-z_]\w*)\s*\(/.exec(line);
    if (!head || line.trimEnd().endsWith(';')) continue;
    let end = i;
    while (end < lines.length && !lines[end]!.startsWith('}')) end++;
    if (end >= lines.length) break;
    found.push({ name: head[1]!, firstLine: i + 1, lastLine: end + 1, isKernel: /^KERNEL\b/.test(line) });
    i = end;
  }
  return found;
}

function readKernel(file: string): KernelInfo {
  const full = path.join(kernelSourceDir, file);
  const text = fs.readFileSync(full, 'utf8');
  const meta = /tsopt-kernel:([^\n]*)/.exec(text);
  if (!meta) throw new Error(`${file}: no 'tsopt-kernel:' line in its header comment`);
  const fields = new Map<string, string>();
  for (const word of meta[1]!.trim().split(/\s+/)) {
    const eq = word.indexOf('=');
    if (eq < 0) throw new Error(`${file}: malformed tsopt-kernel field '${word}'`);
    fields.set(word.slice(0, eq), word.slice(eq + 1));
  }
  const category = fields.get('category') as KernelCategory | undefined;
  if (!category || !categories.includes(category)) throw new Error(`${file}: unknown category '${category}'`);
  const vla = fields.get('vla');
  if (vla !== 'yes' && vla !== 'no') throw new Error(`${file}: vla must be yes or no, not '${vla}'`);
  return {
    name: file.replace(/\.c$/, ''),
    path: full,
    category,
    args: parseList(fields.get('args')),
    altArgs: parseList(fields.get('alt')),
    benchArgs: parseList(fields.get('bench')),
    hasVla: vla === 'yes',
    libs: parseList(fields.get('libs')),
    functions: sourceFunctions(text),
  };
}

/** Every kernel in test/kernels, sorted by name; optionally one category only. */
export function listKernels(category?: KernelCategory): KernelInfo[] {
  return fs
    .readdirSync(kernelSourceDir)
    .filter((f) => f.endsWith('.c') && !notOurs.has(f))
    .sort()
    .map(readKernel)
    .filter((k) => category === undefined || k.category === category);
}

export function findKernel(name: string): KernelInfo {
  const file = `${name}.c`;
  if (notOurs.has(file) || !fs.existsSync(path.join(kernelSourceDir, file))) {
    throw new Error(`no kernel '${name}' in ${kernelSourceDir}`);
  }
  return readKernel(file);
}

export interface KernelBuildOptions {
  /** Compiler flags, e.g. ['-O3']; `-O0` when empty. */
  flags?: readonly string[];
  /** Build with C99 VLA parameters (-DTSOPT_VLA). */
  vla?: boolean;
  /** Qualify the array parameters restrict (-DTSOPT_RESTRICT). */
  restrict?: boolean;
  /** The compiler: clang-14 unless given (e.g. 'gcc'). */
  cc?: string;
}

function variantDefines(options: KernelBuildOptions): string[] {
  return [...(options.vla ? ['-DTSOPT_VLA'] : []), ...(options.restrict ? ['-DTSOPT_RESTRICT'] : [])];
}

function compileArgs(kernel: KernelInfo, options: KernelBuildOptions): string[] {
  const flags = options.flags && options.flags.length > 0 ? options.flags : ['-O0'];
  return [...flags, ...variantDefines(options), `-I${kernelSourceDir}`];
}

/** Everything a build depends on besides the flags: the source and the shared headers. */
function sourceDigest(kernel: KernelInfo): string {
  const hash = createHash('sha256');
  hash.update(fs.readFileSync(kernel.path));
  for (const header of fs.readdirSync(kernelSourceDir).filter((f) => f.endsWith('.h')).sort()) {
    hash.update(header);
    hash.update(fs.readFileSync(path.join(kernelSourceDir, header)));
  }
  return hash.digest('hex');
}

export const kernelCacheDir: string = path.join(
  process.env.TSOPT_CACHE ?? path.join(os.homedir(), '.cache', 'tsopt'),
  'kernels',
);

/**
 * Builds a kernel into an executable and returns its path. Executables are cached by compiler,
 * flags and source (headers included), so repeated calls and parallel jest workers reuse them.
 * Throws with the compiler's output when the build fails (add -Werror to flags to fail on warnings).
 */
export function buildKernel(name: string, options: KernelBuildOptions = {}): string {
  const kernel = findKernel(name);
  const cc = options.cc ?? 'clang-14';
  const args = compileArgs(kernel, options);
  const key = createHash('sha256')
    .update(JSON.stringify([cc, args, kernel.libs]))
    .update(sourceDigest(kernel))
    .digest('hex')
    .slice(0, 16);
  const exe = path.join(kernelCacheDir, `${kernel.name}-${key}`);
  if (fs.existsSync(exe)) return exe;
  fs.mkdirSync(kernelCacheDir, { recursive: true });
  const partial = `${exe}.${process.pid}.tmp`;
  runOk(cc, [...args, kernel.path, '-o', partial, ...kernel.libs]);
  fs.renameSync(partial, exe);
  return exe;
}

/** Runs a built kernel and returns what it printed; throws on a non-zero exit. */
export function runKernel(exe: string, args: readonly string[] = []): string {
  return runOk(exe, args).toString();
}

/** A kernel compiled to LLVM bitcode by clang-14 (`flags` e.g. ['-O3', '-fno-vectorize']). */
export function compileKernelToIr(
  name: string,
  flags: readonly string[],
  options: { vla?: boolean; restrict?: boolean } = {},
): Buffer {
  const kernel = findKernel(name);
  return compileToIr(kernel.path, [...flags, ...variantDefines(options), `-I${kernelSourceDir}`]);
}

/** The function defined at a 1-based line of a kernel's source, if any. */
export function functionAtLine(kernel: KernelInfo, line: number): SourceFunction | undefined {
  return kernel.functions.find((f) => f.firstLine <= line && line <= f.lastLine);
}

// Reading a clang-14 command line the way the driver does, just far enough to know what tscc must
// do with it: which inputs are C/C++ sources, whether the command compiles, links, preprocesses or
// only asks a question, and which flags belong to the compile step and which to the link step.
// Everything tscc does not recognize passes through to clang-14 untouched.

/** Flags that take their value as the next argument (`-o out`, `-I dir`, `-Xclang x`, …). */
const SEPARATE_VALUE = new Set([
  '-o', '-I', '-D', '-U', '-include', '-imacros', '-isystem', '-idirafter', '-iquote', '-iprefix',
  '-iwithprefix', '-iwithprefixbefore', '-isysroot', '--sysroot', '-MF', '-MT', '-MQ', '-MJ', '-x',
  '-Xclang', '-mllvm', '-Xlinker', '-Xassembler', '-Xpreprocessor', '-Xanalyzer', '-L', '-l', '-u',
  '-T', '-z', '-target', '--target', '-arch', '-F', '-iframework', '-serialize-diagnostics',
  '-dependency-file', '-dependency-dot', '-working-directory', '-resource-dir', '-B', '-gcc-toolchain',
  '--gcc-toolchain', '-ivfsoverlay', '-module-dependency-dir', '-e', '-aux-info', '-Xopenmp-target',
  '-include-pch', '-isystem-after', '-cxx-isystem', '-imultilib', '--param',
]);

/** Flags after which clang does not compile to an object: tscc hands the whole command to clang-14. */
const PASS_THROUGH_MODES = new Set([
  '-E', '-M', '-MM', '-fsyntax-only', '-emit-llvm', '-emit-ast', '-###', '--version', '-v', '-V',
  '-qversion', '-dumpversion', '-dumpmachine', '-dumpspecs', '--help', '-help', '-flto', '-flto=thin',
  '-flto=full', '-precompile', '-analyze', '--analyze', '-fmodules-ts', '-save-temps',
]);

const C_SOURCE = /\.(c|i)$/;
const CXX_SOURCE = /\.(cc|cp|cxx|cpp|CPP|c\+\+|C|ii)$/;
/** `-x` languages tscc optimizes; any other language (assembler, headers, IR) passes through. */
const OPTIMIZED_LANGUAGES = new Set(['c', 'c++', 'cpp-output', 'c++-cpp-output']);

export interface SourceInput {
  /** The path as written (`-` for stdin). */
  path: string;
  /** The `-x` language in force for it, or undefined when clang goes by the file name. */
  language?: string;
  /** Index in argv. */
  index: number;
}

export interface ParsedCommand {
  argv: readonly string[];
  /** Inputs tscc optimizes. */
  sources: SourceInput[];
  /** Other inputs (objects, archives, assembler files, `-x`-typed files tscc leaves to clang). */
  otherInputs: number[];
  /** argv indices of `-o` and its value, when given. */
  output?: { index: number; path: string; joined: boolean };
  compileOnly: boolean;
  assembly: boolean;
  /** Why tscc hands the command to clang-14 unchanged, when it does. */
  passThrough?: string;
  /** -MD/-MMD: the compile step writes a dependency file. */
  depFile: boolean;
  /** The last -O level (`0` when absent, as clang's default). */
  optLevel: string;
  loopVectorize: boolean;
  slpVectorize: boolean;
  /** -funroll-loops / -fno-unroll-loops when the user gave one (the last wins); else undefined. */
  unrollLoops?: boolean;
  /** -fopenmp (or -fopenmp=<runtime>), unless a later -fno-openmp: tsopt runs parallel loops on OpenMP's threads. */
  openmp: boolean;
}

function isSource(path: string, language: string | undefined): boolean {
  if (language !== undefined) return OPTIMIZED_LANGUAGES.has(language);
  return C_SOURCE.test(path) || CXX_SOURCE.test(path);
}

/** clang 14's `shouldEnableVectorizerAtOLevel`: the vectorizers clang would run at this -O level. */
function vectorizerDefault(optLevel: string, slp: boolean): boolean {
  if (optLevel === 'fast' || optLevel === '4' || optLevel === 's') return true;
  if (optLevel === 'z') return slp;
  const n = Number(optLevel === '' ? '1' : optLevel);
  return Number.isInteger(n) && n > 1;
}

export function parseCommand(argv: readonly string[]): ParsedCommand {
  const sources: SourceInput[] = [];
  const otherInputs: number[] = [];
  let output: ParsedCommand['output'];
  let compileOnly = false;
  let assembly = false;
  let passThrough: string | undefined;
  let depFile = false;
  let optLevel = '0';
  let loopVec: boolean | undefined;
  let slpVec: boolean | undefined;
  let unroll: boolean | undefined;
  let openmp = false;
  let language: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-' || !a.startsWith('-')) {
      if (a === '-' ? language !== undefined && OPTIMIZED_LANGUAGES.has(language) : isSource(a, language)) {
        sources.push({ path: a, language, index: i });
      } else {
        otherInputs.push(i);
      }
      continue;
    }
    if (a === '-o') {
      output = { index: i, path: argv[i + 1] ?? '', joined: false };
      i++;
      continue;
    }
    if (a.startsWith('-o') && a.length > 2) {
      output = { index: i, path: a.slice(2), joined: true };
      continue;
    }
    if (a === '-x') {
      language = argv[i + 1] === 'none' ? undefined : argv[i + 1];
      i++;
      continue;
    }
    if (a.startsWith('-x') && a.length > 2) {
      language = a.slice(2) === 'none' ? undefined : a.slice(2);
      continue;
    }
    if (SEPARATE_VALUE.has(a)) {
      i++;
      continue;
    }
    if (a === '-c') compileOnly = true;
    else if (a === '-S') assembly = true;
    else if (a === '-MD' || a === '-MMD') depFile = true;
    else if (a.startsWith('-O')) optLevel = a === '-Ofast' ? 'fast' : a.slice(2);
    else if (a === '-fvectorize' || a === '-ftree-vectorize') loopVec = true;
    else if (a === '-fno-vectorize' || a === '-fno-tree-vectorize') loopVec = false;
    else if (a === '-fslp-vectorize' || a === '-ftree-slp-vectorize') slpVec = true;
    else if (a === '-fno-slp-vectorize' || a === '-fno-tree-slp-vectorize') slpVec = false;
    else if (a === '-funroll-loops') unroll = true;
    else if (a === '-fno-unroll-loops') unroll = false;
    else if (a === '-fopenmp' || a.startsWith('-fopenmp=')) openmp = true;
    else if (a === '-fno-openmp') openmp = false;
    if (PASS_THROUGH_MODES.has(a) || a.startsWith('-print-') || a.startsWith('--print-')) {
      passThrough ??= a;
    }
  }
  if (passThrough === undefined) {
    if (sources.length === 0) passThrough = 'no C or C++ source';
    else if (optLevel === '0') passThrough = '-O0';
  }
  return {
    argv, sources, otherInputs, output, compileOnly, assembly, passThrough, depFile, optLevel,
    loopVectorize: loopVec ?? vectorizerDefault(optLevel, false),
    slpVectorize: slpVec ?? vectorizerDefault(optLevel, true),
    unrollLoops: unroll,
    openmp,
  };
}

/** Flags that only the link step uses: left out of the compile step of a compile-and-link command. */
export function isLinkOnlyFlag(a: string): boolean {
  return (
    /^-(l|L|Wl,|u|T|z)/.test(a) ||
    ['-shared', '-static', '-pie', '-no-pie', '-rdynamic', '-nostdlib', '-nostartfiles',
      '-nodefaultlibs', '-s', '-static-libgcc', '-static-libstdc++', '-Xlinker'].includes(a) ||
    a.startsWith('-fuse-ld=') || a.startsWith('--ld-path=')
  );
}

/**
 * The user's flags for one compile step: without other inputs, `-o`, `-c`/`-S`, and (when the
 * command also links) without link-only flags. Flags with separate values keep them.
 */
export function compileFlags(cmd: ParsedCommand, linking: boolean): string[] {
  const skip = new Set<number>(cmd.otherInputs);
  for (const s of cmd.sources) skip.add(s.index);
  if (cmd.output) {
    skip.add(cmd.output.index);
    if (!cmd.output.joined) skip.add(cmd.output.index + 1);
  }
  const out: string[] = [];
  const argv = cmd.argv;
  for (let i = 0; i < argv.length; i++) {
    if (skip.has(i)) continue;
    const a = argv[i];
    if (a === '-c' || a === '-S') continue;
    // -x is re-given per source; keeping it would retype the bitcode input of the codegen step.
    if (a === '-x') { i++; continue; }
    if (a.startsWith('-x')) continue;
    if (linking && isLinkOnlyFlag(a)) {
      if (SEPARATE_VALUE.has(a)) i++;
      continue;
    }
    out.push(a);
    if (SEPARATE_VALUE.has(a) && i + 1 < argv.length) out.push(argv[++i]);
  }
  return out;
}

/**
 * Flags of the codegen step (`clang-14 -c x.bc`): the ones that shape code generation
 * (-O, -m*, -f*, -g*, -target, -mllvm, -Xclang, -W for backend warnings); preprocessor,
 * language and dependency flags would only draw "unused argument" warnings.
 */
export function codegenFlags(flags: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < flags.length; i++) {
    const a = flags[i];
    const takesValue = SEPARATE_VALUE.has(a);
    const keep =
      /^-(O|m|g|W|w|target|--target|pedantic)/.test(a) ||
      (a.startsWith('-f') && !/^-f(no-)?(vectorize|slp-vectorize|tree-vectorize|tree-slp-vectorize)$/.test(a)) ||
      a === '-Xclang' || a === '-mllvm' || a === '-pthread' || a === '--sysroot' || a === '-B';
    if (a.startsWith('-M') && !a.startsWith('-mllvm')) {
      if (takesValue) i++;
      continue;
    }
    if (keep) {
      out.push(a);
      if (takesValue && i + 1 < flags.length) out.push(flags[++i]);
    } else if (takesValue) {
      i++;
    }
  }
  return out;
}

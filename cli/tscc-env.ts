// What tscc reads besides clang's command line: its environment variables (TSOPT_FLAGS,
// TSCC_STRICT, TSCC_DRIVER), what it passes on to the Node processes it starts, and what it says
// about itself in --help and --version. shell-quote and the versions are loaded when asked for:
// every compile starts tscc, and most need neither.
import { TsoptError } from '../ir/errors';

/**
 * TSOPT_FLAGS split into words as a POSIX shell splits them (shell-quote): quotes group and are
 * removed, backslashes escape, `$NAME` stays as written (the shell that set the variable has
 * already expanded what it meant to). Anything a shell would treat as an operator (`|`, `;`,
 * `>`…) is not a flag: an error rather than a silently dropped word.
 */
export function splitTsoptFlags(text: string | undefined): string[] {
  if (!text || text.trim() === '') return [];
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const { parse: parseShellWords } = require('shell-quote') as typeof import('shell-quote');
  const words: string[] = [];
  for (const entry of parseShellWords(text, (name) => `$${name}`)) {
    if (typeof entry === 'string') words.push(entry);
    else if ('op' in entry && entry.op === 'glob') words.push(entry.pattern);
    else if ('comment' in entry) throw new TsoptError(`TSOPT_FLAGS: '#${entry.comment}' is a shell comment, not a flag (quote it)`);
    else throw new TsoptError(`TSOPT_FLAGS: '${'op' in entry ? entry.op : String(entry)}' is a shell operator, not a flag (quote it)`);
  }
  return words;
}

/**
 * Refuses TSOPT_FLAGS that tsopt would refuse, before any source is compiled: a bad flag is the
 * user's mistake on every file, not a reason to fall back to plain clang-14 (which would leave a
 * build that looks optimized and is not). tsopt's parser is loaded only when there are flags.
 */
export function checkTsoptFlags(flags: readonly string[], postArgs: readonly string[]): void {
  if (flags.length === 0) return;
  const question = flags.find((f) => ['--help', '-h', '-help', '--version', '-version'].includes(f));
  if (question !== undefined) throw new TsoptError(`TSOPT_FLAGS: ${question} asks tsopt a question instead of compiling (run tsopt ${question})`);
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const { parseArgs } = require('./tsopt') as typeof import('./tsopt');
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const { parsePipeline } = require('../passes/pipeline') as typeof import('../passes/pipeline');
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const { passRegistry } = require('../passes/registry') as typeof import('../passes/registry');
  try {
    const opts = parseArgs(['in.bc', '-o', 'out.bc', ...postArgs, ...flags]);
    // An unknown pass is as much a bad flag as an unknown option.
    if (typeof opts !== 'string') parsePipeline(opts.passes, passRegistry);
  } catch (e) {
    throw new TsoptError(`TSOPT_FLAGS: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * The environment of the Node processes tscc starts (a tsopt run, the compile server): `env`
 * without NODE_EXTRA_CA_CERTS. With it set, Node loads the system's CA certificates at every
 * start, for TLS tsopt never speaks (50 ms of CPU per start on our machine, where it is set; Node
 * itself starts in about 20). bin/tscc.js's `#!` line drops it for tscc's own start.
 */
export function nodeChildEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (env.NODE_EXTRA_CA_CERTS === undefined) return env;
  const rest = { ...env };
  delete rest.NODE_EXTRA_CA_CERTS;
  return rest;
}

/** tscc's own part of `tscc --help`, printed before clang-14's. */
export function tsccHelp(invokedAs: string): string {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const { versionLine } = require('./versions') as typeof import('./versions');
  return `Usage: ${invokedAs} [clang options] file...

tscc and tscc++ are clang-14 and clang++-14 with tsopt, a polyhedral loop optimizer, in every
compile of C or C++ at -O1 and above: clang-14 writes bitcode with its vectorizers off, tsopt
versions the loop nests it can model and hands the module to opt-14's vectorizers, and clang-14
generates code from the result. Everything else (-E, -M, -emit-llvm, -flto, -O0, link-only
commands, queries such as -print-*) runs clang-14 unchanged. @file response files are expanded as
clang-14 expands them. tscc++ (or C++ sources in a command that links) links with clang++-14.

Profile-driven parameter specialization (two builds, as with clang's PGO):
  -ftsopt-profile-generate[=FILE]  instrument the loop nests; the program appends the parameter
                                   values it ran them with to FILE (default tsopt.profile.json)
  -ftsopt-profile-use=FILE         specialize the nests for the values FILE says are hot
  (tsopt's --profile-generate/--profile-use; clang's own -fprofile-* flags are clang's PGO)

Environment:
  TSOPT_FLAGS    extra tsopt flags for every compile, split into words as a shell splits them
                 (TSOPT_FLAGS='--report="r 1.txt" --report-format=text'); a flag tsopt refuses
                 or an unknown pass fails the compile with one line (tsopt --help lists both)
  TSCC_STRICT=1  a tsopt failure on a source fails its compile; by default tscc prints one
                 warning line and compiles that source with plain clang-14
  TSCC_DRIVER    the clang driver to run (default: clang++-14 for tscc++ or C++ sources,
                 else clang-14)
  TSCC_SERVER=0  run tsopt in a process of its own for every file; by default tscc hands it to
                 a compile server kept between files (started on demand, one per user and
                 build of tsopt, gone when idle; without one tscc runs tsopt itself)
  TSCC_TIME_STAGES=FILE  append each source's CPU time per step to FILE (JSON lines)

tscc runs ${versionLine()}; clang's own help follows.

`;
}

/** The line `tscc --version` adds after clang-14's own text (kept first for tools that parse it). */
export function tsccVersion(): string {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const { versionLine } = require('./versions') as typeof import('./versions');
  return `tscc: ${versionLine()}\n`;
}

// The tsopt command line: flags (yargs) → RunOptions → runTsopt; errors as one line on stderr.
import * as fs from 'node:fs';
import yargs from 'yargs';
import { IDENTITY_PIPELINE } from '../passes/pipeline';
import { afterOptStages, passRegistry } from '../passes/registry';
import { TsoptError } from '../ir/errors';
import { LOG_LEVELS, type LogFormat, type LogLevel } from './log';
import { normalizeOptSpellings } from './opt-spellings';
import { versionLine } from './versions';
import { POST_PIPELINE } from './post-pipeline';
import { execute, reportFailure, STDIO, type CliIo, type RunOptions } from './run';

/**
 * What `tsopt` (and so `tscc` and bin/example) runs without --passes: the one place to change it.
 * The versioning pass is correct on every kernel of ours, on random affine nests, csmith and
 * llvm-stress, and on bzip2 built by tscc (its own `make test`). DeLICM (`--passes=delicm,versioning`)
 * gives the fast path the dependences of the array-only source, but with the original schedule it
 * only turns -O3's register accumulations back into loads and stores of array elements (2mm ran
 * 2.1x, seidel-2d 1.2x the time of plain versioning): it joins the default with the schedule
 * optimizer, which is what needs those dependences. `sink-stores` goes first: one store at a join
 * whose branches each stored to one address (TSVC's s441), `hoist-loads` one load before a branch
 * both of whose arms load one address (s278), and `last-index` the last index where
 * a condition held as a maximum (s331), both for opt's vectorizer.
 */
export const DEFAULT_PIPELINE = 'sink-stores,hoist-loads,last-index,versioning';

/** Our own flags; anything else must be an option some registered pass declares. */
const CLI_FLAGS = new Set([
  '_', '$0', 'output', 'o', 'S', 'passes', 'post', 'post-pipeline', 'keep-unprofitable', 'report', 'report-format',
  'log-level', 'log-format', 'verify-each', 'stats', 'input-as-printed', 'outcome', 'skip-unchanged-output', 'help', 'h', 'version',
]);

/**
 * The passes, each with the names of its options, then every pass option once with its text and
 * the passes that read it (several passes share the isl quotas).
 */
function passList(): string {
  const passes = [...passRegistry.values(), ...afterOptStages];
  const width = Math.max(...passes.map((p) => p.name.length), 4);
  const row = (p: (typeof passes)[number]) => {
    const options = (p.options ?? []).map((o) => `--${o.name}`).join(', ');
    return `  ${p.name.padEnd(width)}  ${p.description}${options ? `\n  ${''.padEnd(width)}  options: ${options}` : ''}`;
  };
  const options = new Map<string, { description: string; passes: string[] }>();
  for (const p of passes) {
    for (const o of p.options ?? []) {
      const entry = options.get(o.name) ?? { description: o.description, passes: [] };
      entry.passes.push(p.name);
      options.set(o.name, entry);
    }
  }
  const optionRows = [...options].map(([name, o]) => `  --${name}=VALUE\n      ${o.description} (read by ${o.passes.join(', ')})`);
  return [
    'Passes (for --passes=a,b,c; `none` is the identity: parse, verify and print the module, with no post pipeline unless --post-pipeline is given):',
    ...[...passRegistry.values()].map(row),
    '',
    'Stages after the post pipeline (on opt-14\'s output; --keep-unprofitable and --no-post run none):',
    ...afterOptStages.map(row),
    '',
    'Pass options (opt\'s single-dash spellings work too: -passes=versioning, -S, -o FILE):',
    ...optionRows,
    '',
    'Example: clang-14 -O3 -fno-vectorize -fno-slp-vectorize -emit-llvm -c k.c -o - | tsopt | llc-14 -O3 -relocation-model=pic -filetype=obj -o k.o',
  ].join('\n');
}

function parser(args: string[]) {
  return yargs(args)
    .scriptName('tsopt')
    .usage(
      'Usage: tsopt [input] [options]\n\n' +
        'A polyhedral loop optimizer for LLVM 14 IR. Reads bitcode or IR text (from stdin when input is\n' +
        'missing or -), runs the passes, hands the result to opt-14 for vectorization, writes bitcode.',
    )
    .parserConfiguration({ 'camel-case-expansion': false, 'strip-dashed': false })
    .option('output', { alias: 'o', type: 'string', default: STDIO, describe: 'output file (- for stdout)' })
    .option('S', { type: 'boolean', default: false, describe: 'write LLVM IR text instead of bitcode' })
    .option('passes', { type: 'string', default: DEFAULT_PIPELINE, describe: 'comma-separated pass pipeline (see below)' })
    .option('post', { type: 'boolean', default: true, describe: 'hand the result to opt-14 (--no-post: do not)' })
    .option('post-pipeline', {
      type: 'string',
      describe: "opt-14 -passes= pipeline for the hand-back (default: -O3's vectorizers and clean-ups)",
    })
    .option('keep-unprofitable', {
      type: 'boolean',
      default: false,
      describe: 'keep every fast path after the post pipeline, also those opt vectorized nothing of whose check rules out no aliasing (default: the original code runs there; passes/profitability.ts)',
    })
    .option('report', { type: 'string', describe: "write the report to FILE (- for stderr): each function's SCoPs and rejected regions in the input, what the passes did to each SCoP, and the pipeline's timings, statistics and remarks" })
    .option('report-format', { choices: ['json', 'text'], default: 'json', describe: 'format of --report' })
    .option('outcome', { type: 'string', describe: 'write `changed` or `unchanged` to FILE: whether the output keeps anything of the passes (a rewrite, a fast path the profitability rule kept) or is the input through the post pipeline only (tscc then compiles the source with clang-14 itself)' })
    .option('skip-unchanged-output', {
      type: 'boolean',
      default: false,
      describe: 'with --outcome: when the outcome is `unchanged`, write no output (an existing regular file of that name is removed) and skip what only serves it (the post pipeline where no pass changed the module and no --report asks for it; the decided module\'s print and clean-up): for a caller that compiles such a source itself (tscc)',
    })
    .option('log-level', { choices: LOG_LEVELS, default: 'warn', describe: 'log level (debug: each pass and its time)' })
    .option('log-format', { choices: ['text', 'json'], default: 'text', describe: 'log lines as text or pino JSON (stderr)' })
    .option('verify-each', { type: 'boolean', default: false, describe: "run LLVM's verifier after every pass" })
    .option('stats', { type: 'boolean', default: false, describe: 'print pass statistics to stderr' })
    .option('input-as-printed', {
      type: 'boolean',
      default: false,
      describe: "the input is IR text as clang-14 or opt-14 printed it (tscc's front end): parsed as it is, without opt-14 to read and print it first",
    })
    .strict(false)
    .exitProcess(false)
    .showHelpOnFail(false)
    .fail((msg, err) => {
      throw err instanceof TsoptError ? err : new TsoptError(msg ?? err?.message ?? 'bad command line');
    })
    .version(false)
    .option('version', { type: 'boolean', describe: 'print the versions of tsopt, the LLVM it runs (opt-14) and isl' })
    .help()
    .alias('help', 'h')
    .epilogue(passList())
    .wrap(null);
}

/** Options for passes: every `--name=value` not ours, checked against what the registered passes declare. */
function passOptions(argv: Record<string, unknown>): Map<string, string> {
  const declared = new Set([...passRegistry.values(), ...afterOptStages].flatMap((p) => (p.options ?? []).map((o) => o.name)));
  const options = new Map<string, string>();
  for (const [key, value] of Object.entries(argv)) {
    if (CLI_FLAGS.has(key)) continue;
    if (!declared.has(key)) throw new TsoptError(`unknown option --${key} (see tsopt --help)`);
    options.set(key, String(Array.isArray(value) ? value.at(-1) : value));
  }
  return options;
}

/** Parses the flags; 'help' when yargs printed the help, 'version' when --version asks for it. */
export function parseArgs(args: string[]): RunOptions | 'help' | 'version' {
  const argv = parser(normalizeOptSpellings(args)).parseSync() as Record<string, unknown> & { _: (string | number)[] };
  if (argv.help === true) return 'help';
  if (argv.version === true) return 'version';
  if (argv._.length > 1) throw new TsoptError(`expected at most one input, got ${argv._.join(' ')}`);
  const last = <T>(v: T | T[]): T => (Array.isArray(v) ? (v.at(-1) as T) : v);
  const report = argv.report === undefined ? undefined : String(last(argv.report));
  const output = String(last(argv.output));
  // yargs gives a string option without its value as ''; opt says "requires a value" too.
  if (output === '') throw new TsoptError('-o needs a file name (- for stdout)');
  if (report === '') throw new TsoptError('--report needs a file name (- for stderr)');
  const passes = String(last(argv.passes));
  if (argv['skip-unchanged-output'] === true && argv.outcome === undefined) throw new TsoptError('--skip-unchanged-output needs --outcome=FILE (it says whether an output was written)');
  // `none` is the identity: no post pipeline either, unless one is asked for by name.
  const post = argv.post !== false && (passes !== IDENTITY_PIPELINE || argv['post-pipeline'] !== undefined);
  return {
    input: argv._.length === 1 ? String(argv._[0]) : STDIO,
    output,
    format: argv.S === true ? 'll' : 'bc',
    passes,
    postPipeline: post ? String(last(argv['post-pipeline'] ?? POST_PIPELINE)) : undefined,
    keepUnprofitable: argv['keep-unprofitable'] === true,
    verifyEach: argv['verify-each'] === true,
    report: report === undefined ? undefined : { file: report, format: last(argv['report-format']) as 'json' | 'text' },
    passOptions: passOptions(argv),
    printStats: argv.stats === true,
    inputAsPrinted: argv['input-as-printed'] === true,
    outcome: argv.outcome === undefined ? undefined : String(last(argv.outcome)),
    skipUnchangedOutput: argv['skip-unchanged-output'] === true,
    logLevel: last(argv['log-level']) as LogLevel,
    logFormat: last(argv['log-format']) as LogFormat,
  };
}

/**
 * All of stdin. A loop over readSync rather than readFileSync(0): a pipe a parent left in
 * non-blocking mode answers EAGAIN until data arrives.
 */
function readAllStdin(): Buffer {
  const chunks: Buffer[] = [];
  const chunk = Buffer.alloc(1 << 20);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(0, chunk, 0, chunk.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        Atomics.wait(pause, 0, 0, 5);
        continue;
      }
      if (code === 'EOF') break;
      throw e;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(chunk.subarray(0, n)));
  }
  return Buffer.concat(chunks);
}

export function processIo(): CliIo {
  return {
    readStdin: readAllStdin,
    writeStdout: (bytes) => void process.stdout.write(bytes),
    writeStderr: (text) => void process.stderr.write(text),
    stdoutIsTerminal: process.stdout.isTTY === true,
  };
}

/** --log-format as written, for errors found before the flags parse (they follow it too). */
function requestedLogFormat(args: readonly string[]): LogFormat {
  const i = args.findIndex((a) => /^--?log-format(=|$)/.test(a));
  const value = i < 0 ? undefined : args[i].includes('=') ? args[i].slice(args[i].indexOf('=') + 1) : args[i + 1];
  return value === 'json' ? 'json' : 'text';
}

/** The whole command; returns the exit code (see `execute`). */
export function main(args: string[], io: CliIo): number {
  let opts: RunOptions | 'help' | 'version';
  try {
    opts = parseArgs(args);
  } catch (e) {
    return reportFailure(e, io, undefined, requestedLogFormat(args));
  }
  if (opts === 'version') io.writeStdout(Buffer.from(`${versionLine()}\n`));
  return typeof opts === 'string' ? 0 : execute(opts, io);
}

/** Entry point of bin/tsopt.js. */
export function runFromProcess(): void {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(1);
    throw e;
  });
  process.exitCode = main(process.argv.slice(2), processIo());
}

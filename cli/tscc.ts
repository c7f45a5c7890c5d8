// `tscc`: a drop-in for clang-14 (`make CC=tscc`, `CC=tscc ./configure`, CMake) that puts tsopt
// into the compile step of every C or C++ source:
//
//   clang-14 <user flags> -emit-llvm -c -fno-vectorize -fno-slp-vectorize <DEFER_UNROLLING> <DEFER_LOOP_VERSIONING> src -o a.bc
//   tsopt a.bc -o b.bc [--post-pipeline=… | --no-post] $TSOPT_FLAGS   (opt-14's vectorizers run here)
//   clang-14 <user codegen flags> <loop alignment> -Xclang -disable-llvm-passes -c|-S -x ir b.bc -o out
//
// The last step is clang rather than llc-14 so that the driver's defaults for this system stay
// exactly clang's (PIE on Debian, -march=native's CPU and features, -mcmodel, -ffunction-sections,
// -g's DWARF options, the integrated assembler); `-disable-llvm-passes` keeps it from running the
// -O pipeline a second time over tsopt's output (it would re-vectorize and re-unroll), while
// the codegen passes (what llc-14 runs) still run at the user's -O level.
// Anything that is not a compile of C/C++ at -O1 or above (link-only, -E, -M, -emit-llvm,
// -flto, queries like --version or -print-*) goes to clang-14 unchanged.
import { spawnSync, SpawnSyncReturns } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { POST_PIPELINE } from './post-pipeline';
import { expandResponseFiles } from './response-files';
import { checkTsoptFlags, nodeChildEnv, splitTsoptFlags, tsccHelp, tsccVersion } from './tscc-env';
import { codegenFlags, compileFlags, parseCommand, ParsedCommand, SourceInput } from './tscc-args';
import { takeProfileFlags } from './tscc-profile';
import { loopAlignFlags } from './tscc-loop-align';
import { readOutcome } from './outcome';
import { isLoopFree } from './tscc-fast-path';
import { StageClock, TSOPT_STAGE_FLAGS } from './tscc-stages';
import { startupCpuMs } from './cpu-clock';

const TSOPT_JS = path.resolve(__dirname, '..', '..', 'bin', 'tsopt.js');

interface Env {
  driver: string;
  stdin?: Buffer;
  strict: boolean;
  tsoptFlags: string[];
  clock: StageClock;
  /** tsopt runs on the compile server when it can (cli/tsopt-server.ts); TSCC_SERVER=0 turns it off. */
  server: boolean;
}

/** Runs a tool with our stderr; the tool's stdout goes to ours unless captured. */
function exec(cmd: string, args: readonly string[], stdin?: Buffer, captureStderr = false): SpawnSyncReturns<Buffer> {
  const r = spawnSync(cmd, args, {
    input: stdin,
    stdio: [stdin ? 'pipe' : 'inherit', 'inherit', captureStderr ? 'pipe' : 'inherit'],
    maxBuffer: 1 << 30,
  });
  if (r.error) throw r.error;
  return r;
}

function statusOf(r: SpawnSyncReturns<Buffer>): number {
  return r.status ?? 1;
}

/** The post pipeline tsopt should run, given which vectorizers the user's flags leave on. */
export function postPipelineArgs(cmd: ParsedCommand): string[] {
  if (!cmd.loopVectorize && !cmd.slpVectorize) return ['--no-post'];
  let pipeline = POST_PIPELINE;
  if (!cmd.slpVectorize) pipeline = pipeline.replace(/slp-vectorizer,/g, '');
  if (!cmd.loopVectorize) pipeline = pipeline.replace(/loop-vectorize<[^>]*>,/, '');
  if (cmd.unrollLoops === false) pipeline = pipeline.replace(/loop-unroll<[^>]*>,/, '');
  return pipeline === POST_PIPELINE ? [] : [`--post-pipeline=${pipeline}`];
}

/**
 * Whether the front end leaves loop unrolling to the post pipeline. -O3 unrolls loops (runtime
 * unrolling included) right where the vectorizer would have run first; with the vectorizers
 * deferred, the front end would unroll loops that the post pipeline then vectorizes far worse
 * (gemm runs far more instructions than clang -O3's build). The post pipeline's loop-unroll<O3> then unrolls after vectorizing, as -O3 does.
 * A user's explicit -f(no-)unroll-loops is left as they gave it.
 */
export function deferUnrolling(cmd: ParsedCommand): boolean {
  return cmd.unrollLoops === undefined && (cmd.loopVectorize || cmd.slpVectorize);
}

/**
 * How the front end defers unrolling: no partial and no runtime unrolling (full unrolling of
 * constant trip counts stays, as in -O3). Not -fno-unroll-loops: clang marks every loop it
 * compiles that way `llvm.loop.unroll.disable`, which the post pipeline's unroller obeys, so
 * every loop tsopt did not make (the slow paths, dropped fast paths, code outside SCoPs) stayed
 * rolled where clang -O3 unrolls it (trmm's main: 1.10x clang's instructions once its
 * unprofitable fast paths were dropped; 1.0x with these flags).
 */
export const DEFER_UNROLLING = ['-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false'];

/**
 * The front end leaves loop-load elimination's versioned loops to the post pipeline (whose
 * `loop-load-elim` keeps its default of one run-time check per loop): -O3 versions a loop that
 * reads what its previous iteration stored (`p[i][j-1]` after `p[i][j] = …`, PolyBench adi's
 * sweeps) behind a pointer comparison, and a branch on one is no SCoP, so only the innermost
 * loops were. In tsopt's fast path the alias scopes let the post pipeline forward without a check.
 */
export const DEFER_LOOP_VERSIONING = ['-mllvm', '-runtime-check-per-loop-load-elim=0'];

/**
 * Whether the front end leaves loop-load elimination's versioning to the post pipeline: only when
 * there is one (a vectorizer on; without, `--no-post` would drop it for good), and not when the
 * user set the option themselves (an LLVM option given twice is an error).
 */
export function deferLoopVersioning(cmd: ParsedCommand): boolean {
  return (cmd.loopVectorize || cmd.slpVectorize) && !cmd.argv.some((a) => a.includes('runtime-check-per-loop-load-elim'));
}

/** clang's `-###` quoting: each argument in double quotes, `"`, `\` and `$` escaped with `\`. */
function parseJobLine(line: string): string[] {
  const args: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(line)) !== null) args.push(m[1].replace(/\\(.)/g, '$1'));
  return args;
}

/**
 * The dependency file and targets clang would use for each compiled source, read from its own
 * `-###` plan, so that the .d files tscc lets clang write are the ones clang alone would write.
 */
function dependencyPlan(env: Env, argv: readonly string[]): { file?: string; targets: string[] }[] {
  const r = spawnSync(env.driver, ['-###', ...argv], { encoding: 'utf8' });
  const jobs: { file?: string; targets: string[] }[] = [];
  for (const line of (r.stderr ?? '').split('\n')) {
    const args = parseJobLine(line);
    if (args[1] !== '-cc1') continue;
    const job: { file?: string; targets: string[] } = { targets: [] };
    for (let i = 2; i < args.length - 1; i++) {
      if (args[i] === '-dependency-file') job.file = args[i + 1];
      else if (args[i] === '-MT') job.targets.push(args[i + 1]);
    }
    jobs.push(job);
  }
  return jobs;
}

/** The user's dependency-output flags removed (tscc gives clang's own plan explicitly instead). */
function withoutDepTargets(flags: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < flags.length; i++) {
    if (['-MF', '-MT', '-MQ'].includes(flags[i])) { i++; continue; }
    if (/^-M[FTQ]./.test(flags[i])) continue;
    out.push(flags[i]);
  }
  return out;
}

function defaultOutput(source: string, assembly: boolean): string {
  const base = source === '-' ? '-' : path.basename(source).replace(/\.[^.]*$/, '');
  return `${base}.${assembly ? 's' : 'o'}`;
}

/**
 * Compiles one source through clang → tsopt → clang codegen into `output` (an object, or
 * assembly with `assembly`). Returns the exit status; a tsopt failure falls back to clang-14.
 */
async function compileSource(
  env: Env, cmd: ParsedCommand, source: SourceInput, output: string, assembly: boolean,
  linking: boolean, tmp: string, n: number, deps?: { file?: string; targets: string[] },
): Promise<number> {
  let flags = compileFlags(cmd, linking);
  if (deps) {
    flags = withoutDepTargets(flags);
    if (deps.file !== undefined) flags.push('-MF', deps.file);
    for (const t of deps.targets) flags.push('-MT', t);
  }
  const lang = source.language !== undefined ? ['-x', source.language] : [];
  const stdin = source.path === '-' ? env.stdin : undefined;
  const plain = (): number =>
    statusOf(exec(env.driver, [...flags, assembly ? '-S' : '-c', ...lang, source.path, '-o', output], stdin));

  // Without TSOPT_FLAGS the front end writes text, which tscc scans for loops (cli/tscc-fast-path.ts);
  // tsopt reads either the same way (opt-14 prints it first).
  const scan = env.tsoptFlags.length === 0;
  const irFile = path.join(tmp, scan ? `${n}.ll` : `${n}.bc`);
  const optFile = path.join(tmp, `${n}.opt.bc`);
  const outcomeFile = path.join(tmp, `${n}.outcome`);
  const front = env.clock.time('front end (clang-14)', () => exec(env.driver, [
    ...flags, '-fno-vectorize', '-fno-slp-vectorize', ...(deferUnrolling(cmd) ? DEFER_UNROLLING : []), ...(deferLoopVersioning(cmd) ? DEFER_LOOP_VERSIONING : []),
    '-emit-llvm', scan ? '-S' : '-c', ...lang, source.path, '-o', irFile,
  ], stdin));
  // The front end's diagnostics are the user's; clang alone would have stopped here too.
  if (front.status !== 0) return statusOf(front);

  const fail = (reason: string): number => {
    const name = source.path === '-' ? '<stdin>' : source.path;
    if (env.strict) {
      process.stderr.write(`tscc: error: tsopt failed on ${name}: ${reason}\n`);
      return 1;
    }
    // A fallback keeps the build going and hides a tsopt bug: CI should set TSCC_STRICT=1.
    process.stderr.write(`tscc: warning: tsopt failed on ${name}: ${reason}; compiling with clang-14 (TSCC_STRICT=1 makes this an error: the setting for CI)\n`);
    return plain();
  };

  // clang -O3's own compile of the source, for a module tsopt leaves as it is (cli/outcome.ts):
  // its object, not the post pipeline's, which differs from it in registers, spills and alignment.
  // The front end printed the source's diagnostics already: this run's are shown only if it fails.
  const clangItself = (stage: string): number => {
    const again = env.clock.time(stage, () => exec(env.driver, [...flags, assembly ? '-S' : '-c', ...lang, source.path, '-o', output], stdin, true));
    if (again.status !== 0) process.stderr.write(again.stderr);
    return statusOf(again);
  };

  // No function can loop: SCoP detection admits only regions holding a loop, so tsopt would leave
  // the module unchanged (cli/tscc-fast-path.ts). One clang run costs less than the post pipeline
  // and the back end (two tool runs), and its object is clang's.
  if (scan && env.clock.time('loop scan', () => isLoopFree(irFile))) return clangItself('loop-free: clang-14 -O3');

  const timing = env.clock.enabled ? TSOPT_STAGE_FLAGS : [];
  // Without TSOPT_FLAGS tsopt says whether it left anything of its own (cli/outcome.ts), and
  // writes no output where it left nothing: tscc compiles such a source with clang-14 below.
  const outcome = scan ? [`--outcome=${outcomeFile}`, '--skip-unchanged-output'] : [];
  const args = [irFile, '-o', optFile, ...(scan ? ['--input-as-printed'] : []), ...postPipelineArgs(cmd), ...(cmd.openmp ? ['--parallel'] : []), ...env.tsoptFlags, ...outcome, ...timing];
  // The server only for the default run: TSOPT_FLAGS may name files relative to this directory.
  // The client (and node:net, node:crypto) is loaded only here: most of tscc's runs (loop-free
  // files, links, configure's probes) never speak to the server.
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const runOnServer = (): ReturnType<typeof import('./tsopt-client').runOnServer> => (require('./tsopt-client') as typeof import('./tsopt-client')).runOnServer(args, process.env, source.path);
  const served = env.server && env.tsoptFlags.length === 0 ? await env.clock.timeAsync('tsopt on the server (client side)', runOnServer) : undefined;
  const opt = served ?? env.clock.time('tsopt', () => spawnSync(process.execPath, [TSOPT_JS, ...args], { encoding: 'utf8', maxBuffer: 1 << 30, env: nodeChildEnv() }));
  if ('error' in opt && opt.error) return fail(opt.error.message);
  const stderr = env.clock.enabled ? env.clock.takeTsoptRecords(opt.stderr ?? '') : opt.stderr ?? '';
  if (opt.status !== 0) {
    const lines = stderr.trim().split('\n').filter((l) => l.trim() !== '');
    const last = lines.length > 0 ? lines[lines.length - 1].replace(/^tsopt: error: /, '').replace(`${irFile}: `, '') : '';
    return fail(last || `exit ${opt.status ?? ('signal' in opt ? opt.signal : '')}`);
  }
  if (stderr) process.stderr.write(stderr);
  // Nothing of tsopt's stayed.
  if (scan && readOutcome(outcomeFile) === 'unchanged') return clangItself('unchanged: clang-14 -O3');

  const back = env.clock.time('back end (clang-14)', () => exec(env.driver, [
    ...codegenFlags(flags), ...loopAlignFlags(cmd, flags), '-Qunused-arguments', '-Xclang', '-disable-llvm-passes',
    assembly ? '-S' : '-c', '-x', 'ir', optFile, '-o', output,
  ], undefined, true));
  if (back.status !== 0) {
    const lines = back.stderr.toString().trim().split('\n');
    return fail(`code generation of tsopt's output failed: ${lines[0] ?? ''}`);
  }
  if (back.stderr.length > 0) process.stderr.write(back.stderr);
  return 0;
}

/**
 * One tscc command. `given` is the command line as written (what pass-through commands hand to
 * clang, response files and all); `argv` is it with its `@file`s expanded.
 */
async function run(given: readonly string[], argv: readonly string[], env: Env, invokedAs: string): Promise<number> {
  const cmd = parseCommand(argv);
  if (cmd.passThrough === '--help' || cmd.passThrough === '-help') {
    process.stdout.write(tsccHelp(invokedAs));
    return statusOf(exec(env.driver, given));
  }
  if (cmd.passThrough === '--version') {
    // clang's text first: build tools that identify the compiler read its first line.
    const status = statusOf(exec(env.driver, given));
    process.stdout.write(tsccVersion());
    return status;
  }
  if (cmd.passThrough !== undefined) return statusOf(exec(env.driver, given));
  checkTsoptFlags(env.tsoptFlags, postPipelineArgs(cmd));
  if (cmd.sources.some((s) => s.path === '-')) env.stdin = fs.readFileSync(0);
  const linking = !cmd.compileOnly && !cmd.assembly;
  if (!linking && cmd.output && cmd.sources.length > 1) {
    // clang's own error ("cannot specify -o when generating multiple output files").
    return statusOf(exec(env.driver, argv));
  }
  const plan = cmd.depFile ? dependencyPlan(env, argv) : undefined;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tscc-'));
  try {
    const objects: string[] = [];
    for (const [n, source] of cmd.sources.entries()) {
      const output = linking
        ? path.join(tmp, `${n}-${path.basename(source.path).replace(/\.[^.]*$/, '')}.o`)
        : cmd.output?.path ?? defaultOutput(source.path, cmd.assembly);
      const status = await compileSource(env, cmd, source, output, cmd.assembly, linking, tmp, n, plan?.[n]);
      env.clock.flush(source.path);
      if (status !== 0) return status;
      objects.push(output);
    }
    if (!linking) return 0;
    // Link: the user's command with each source replaced by its object, typed as an object.
    const bySource = new Map(cmd.sources.map((s, n) => [s.index, objects[n]]));
    const link: string[] = [];
    argv.forEach((a, i) => {
      const obj = bySource.get(i);
      if (obj === undefined) link.push(a);
      else link.push('-x', 'none', obj);
    });
    return statusOf(exec(env.driver, [...link.filter((a) => a !== '-MD' && a !== '-MMD'), '-Qunused-arguments']));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Which clang driver: clang++-14 when called as `tscc++` or compiling C++, else clang-14. */
function chooseDriver(argv: readonly string[], invokedAs: string): string {
  if (process.env.TSCC_DRIVER) return process.env.TSCC_DRIVER;
  if (path.basename(invokedAs).includes('++')) return 'clang++-14';
  const cmd = parseCommand(argv);
  const cxx = cmd.sources.some((s) => (s.language ?? '').startsWith('c++') || /\.(cc|cp|cxx|cpp|CPP|c\+\+|C|ii)$/.test(s.path));
  return cxx ? 'clang++-14' : 'clang-14';
}

export async function runFromProcess(): Promise<void> {
  const startup = startupCpuMs();
  const given = process.argv.slice(2);
  const invokedAs = path.basename(process.argv[1] ?? 'tscc').replace(/\.js$/, '');
  let status: number;
  try {
    const profile = takeProfileFlags(expandResponseFiles(given));
    const argv = profile.argv;
    const env: Env = {
      driver: chooseDriver(argv, invokedAs),
      strict: process.env.TSCC_STRICT === '1',
      tsoptFlags: [...profile.tsoptFlags, ...splitTsoptFlags(process.env.TSOPT_FLAGS)],
      clock: new StageClock(process.env.TSCC_TIME_STAGES || undefined, startup),
      server: process.env.TSCC_SERVER !== '0',
    };
    // Commands clang gets as given (links, -O0) must not see our profile flags either.
    status = await run(profile.tsoptFlags.length > 0 ? argv : given, argv, env, invokedAs);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    process.stderr.write(`tscc: error: ${message.replace(/\s*\n\s*/g, ' ').trim()}\n`);
    status = 1;
  }
  process.exitCode = status;
}

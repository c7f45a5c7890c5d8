// `npm run bench -- …`: PolyBench/C, uBLAS and our own kernels, four compilers each
// (`npm run bench -- --help` for the options).
import * as os from 'node:os';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import yargs from 'yargs';
import { notInBuilds, treeDigest } from './build-cache';
import { hasCallgrind } from './check-cost';
import { AGAINST_POLLY, BASELINE, LIMIT, POLLY, hasPerfTaskClock, judgeRun, parseVariant, Program, runSuite, standardVariants, threadVariants, SuiteResult, Tolerance, TSCC_JS, Variant } from './harness';
import { profileVariants } from './profile-variant';
import { FAMILY_LEVEL, signTestRule } from './noise';
import { BenchRun, toTable, writeReports } from './results-files';
import { kernelPrograms, polybenchPrograms, POLYBENCH_TOLERANCE, PRINTED_E_TOLERANCE, ublasPrograms } from './suites';
import { loadReading, loadWarning, toolVersions } from './run-facts';
import { runTsvc, tsvcPlannedLoops, TSVC_TOLERANCE } from './tsvc';
import { limitVariant, openblasFacts } from './limit';

interface Options {
  polybench?: string;
  ublas: boolean;
  kernelsDir?: string;
  /** A TSVC_2 checkout (bench/tsvc.ts), and what its iteration counts are divided by. */
  tsvc?: string;
  tsvcDivide: number;
  tsvcLoops?: Set<string>;
  dataset: string;
  kernels?: Set<string>;
  /** Undefined: as many rounds as the run's comparisons need (bench/noise.ts). */
  repeat?: number;
  /** --min-repeat M: a program's rounds may stop after M once its verdicts at `repeat` are decided. */
  minRepeat?: number;
  out: string;
  extraVariants: Variant[];
  onlyVariants?: Set<string>;
  vla: boolean;
  tiny: boolean;
  checkCost: boolean;
  /** --threads N: OpenMP variants with N threads (0: none). */
  threads: number;
  /** --profile: tscc-profgen and tscc-prof (bench/profile-variant.ts). */
  profile: boolean;
  /** --limit: the OpenBLAS variant (bench/limit.ts). */
  limit: boolean;
  /** --builds DIR: executables kept there and reused when their build is the same (bench/build-cache.ts). */
  builds?: string;
  /** --build-only: build and check, time nothing. */
  buildOnly: boolean;
}

const DATASETS = ['MINI', 'SMALL', 'MEDIUM', 'LARGE', 'EXTRALARGE'];

function parser(argv: readonly string[]) {
  return yargs([...argv])
    .scriptName('npm run bench --')
    .usage('Usage: npm run bench -- (--polybench DIR | --ublas | --kernels-dir DIR | --tsvc DIR)... [options]\n\n'
      + 'Builds each program with clang-14 -O3 (the baseline), Polly, gcc with Graphite, tscc and the pipe, checks that each\n'
      + 'prints what clang -O3\'s build prints, times them in interleaved rounds, and writes results.json, results.csv,\n'
      + 'chart.svg and chart.png (bench/README.md).')
    .parserConfiguration({ 'camel-case-expansion': false, 'strip-dashed': false })
    .option('polybench', { type: 'string', describe: 'a PolyBench/C 4.2.1 checkout (suites polybench and polybench-vla)' })
    .option('ublas', { type: 'boolean', default: false, describe: 'our Boost uBLAS gemm, 2mm, syrk, trmm, covariance, correlation, jacobi-2d (bench/ublas)' })
    .option('kernels-dir', { type: 'string', describe: 'our C kernels (test/kernels)' })
    .option('tsvc', { type: 'string', describe: 'a TSVC_2 checkout (github.com/UoB-HPC/TSVC_2): its 151 loops, each timed and checked by its checksum (clang, polly, tscc)' })
    .option('tsvc-divide', { type: 'number', default: 5, describe: "TSVC's iteration counts divided by this (a full run takes minutes)" })
    .option('tsvc-loops', { type: 'string', describe: 'only these TSVC loops (s111,s292)' })
    .option('dataset', { type: 'string', default: 'LARGE', describe: `PolyBench and uBLAS size: ${DATASETS.join(' ')}` })
    .option('tiny', { type: 'boolean', default: false, describe: 'time our kernels at their test sizes (a smoke run)' })
    .option('kernels', { type: 'string', describe: 'only these programs (a,b,c)' })
    .option('repeat', { type: 'number', describe: "rounds (default: the fewest whose sign test can call a difference with the run's number of comparisons, bench/noise.ts)" })
    .option('min-repeat', { type: 'number', describe: "stop a program's rounds after this many once the sign test's verdicts at --repeat rounds are decided (PolyBench, uBLAS, our kernels; not TSVC)" })
    .option('out', { type: 'string', default: 'bench-results', describe: 'directory for the reports' })
    .option('variant', { type: 'string', array: true, default: [] as string[], describe: 'an extra variant NAME=CMD (e.g. o2="clang-14 -O2"), repeatable' })
    .option('only-variants', { type: 'string', describe: 'only these variants (a,b) besides clang' })
    .option('vla', { type: 'boolean', default: true, describe: 'also the C99-VLA PolyBench suite (--no-vla: skip it)' })
    .option('profile', { type: 'boolean', default: false, describe: 'also tscc-profgen (instrumented by -ftsopt-profile-generate) and tscc-prof (specialized by -ftsopt-profile-use after a training run on the checking and timing inputs)' })
    .option('threads', { type: 'number', default: 0, describe: 'also tscc -fopenmp and Polly -polly-parallel, run with OMP_NUM_THREADS=N (time them with --polybench: PolyBench times wall clock, our kernels CPU time)' })
    .option('limit', { type: 'boolean', default: false, describe: 'also `limit`: the BLAS-3 PolyBench kernels (gemm, 2mm, 3mm, syrk, syr2k, trmm, symm) computed by OpenBLAS (libopenblas-dev), one thread, without OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE; the kernel it ran is recorded (bench/limit.ts)' })
    .option('builds', { type: 'string', describe: 'keep the executables in this directory and reuse those whose build (command, sources, tsopt\'s dist/) is unchanged: build on a busy machine, time on a quiet one' })
    .option('build-only', { type: 'boolean', default: false, describe: 'build every variant and check its output, time nothing (with --builds: the builds for a later timing run)' })
    .option('check-cost', { type: 'boolean', default: false, describe: "also count the run-time checks' executed instructions (callgrind at the bench sizes: slow, about 80 min for test/kernels; bench/check-cost.ts)" })
    .strict()
    .exitProcess(false)
    .showHelpOnFail(false)
    .fail((msg, err) => {
      throw err ?? new Error(`${msg} (see --help)`);
    })
    .version(false)
    .help()
    .alias('help', 'h')
    .wrap(Math.min(120, process.stdout.columns ?? 120));
}

/** The options, or undefined when --help already printed the usage. */
export function parseOptions(argv: readonly string[]): Options | undefined {
  const a = parser(argv).parseSync();
  if (a.help === true) return undefined;
  const last = <T>(v: T | T[]): T => (Array.isArray(v) ? (v.at(-1) as T) : v);
  const list = (v: string | undefined) => (v === undefined ? undefined : new Set(v.split(',').filter(Boolean)));
  const o: Options = {
    polybench: a.polybench === undefined ? undefined : path.resolve(last(a.polybench)),
    ublas: a.ublas,
    kernelsDir: a['kernels-dir'] === undefined ? undefined : path.resolve(last(a['kernels-dir'])),
    tsvc: a.tsvc === undefined ? undefined : path.resolve(last(a.tsvc)),
    tsvcDivide: last(a['tsvc-divide']),
    tsvcLoops: list(a['tsvc-loops'] === undefined ? undefined : last(a['tsvc-loops'])),
    dataset: last(a.dataset).toUpperCase(),
    kernels: list(a.kernels === undefined ? undefined : last(a.kernels)),
    repeat: a.repeat === undefined ? undefined : last(a.repeat),
    minRepeat: a['min-repeat'] === undefined ? undefined : last(a['min-repeat']),
    out: path.resolve(last(a.out)),
    extraVariants: a.variant.map((v) => parseVariant(String(v))),
    onlyVariants: list(a['only-variants'] === undefined ? undefined : last(a['only-variants'])),
    vla: a.vla,
    tiny: a.tiny,
    checkCost: a['check-cost'],
    threads: last(a.threads),
    profile: a.profile === true,
    limit: a.limit,
    builds: a.builds === undefined ? undefined : path.resolve(last(a.builds)),
    buildOnly: a['build-only'],
  };
  for (const flag of ['polybench', 'kernels-dir', 'tsvc', 'out', 'builds'] as const) {
    if (a[flag] !== undefined && last(a[flag] as string | string[]) === '') throw new Error(`--${flag} needs a directory (see --help)`);
  }
  if (!DATASETS.includes(o.dataset)) throw new Error(`unknown dataset ${o.dataset} (one of ${DATASETS.join(' ')})`);
  if (o.repeat !== undefined && (!Number.isInteger(o.repeat) || o.repeat < 1)) throw new Error('--repeat wants a positive integer');
  if (o.minRepeat !== undefined && (!Number.isInteger(o.minRepeat) || o.minRepeat < 1)) throw new Error('--min-repeat wants a positive integer');
  if (!Number.isInteger(o.threads) || o.threads < 0) throw new Error('--threads wants a non-negative integer');
  if (!Number.isInteger(o.tsvcDivide) || o.tsvcDivide < 1) throw new Error('--tsvc-divide wants a positive integer');
  if (!o.polybench && !o.ublas && !o.kernelsDir && !o.tsvc) throw new Error('nothing to run: give --polybench DIR, --ublas, --kernels-dir DIR or --tsvc DIR (see --help)');
  return o;
}

/** Whether this gcc has Graphite (-floop-nest-optimize is accepted silently without it). */
function gccGraphiteNote(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsopt-graphite-'));
  const src = path.join(dir, 't.c');
  fs.writeFileSync(src, 'double a[64][64];\nvoid f(void){for(int i=0;i<64;i++)for(int j=0;j<64;j++)a[j][i]+=1;}\n');
  const r = spawnSync('gcc', ['-O3', '-floop-nest-optimize', '-fopt-info-loop', '-c', src, '-o', path.join(dir, 't.o')], { encoding: 'utf8' });
  fs.rmSync(dir, { recursive: true, force: true });
  return /loop nest optimized|interchanged/.test(r.stderr ?? '')
    ? 'gcc has Graphite: -floop-nest-optimize transformed a probe loop nest'
    : 'gcc appears to lack Graphite: -floop-nest-optimize did nothing on a probe loop nest (gcc-graphite = plain gcc -O3)';
}

export function main(argv: readonly string[]): number {
  const o = parseOptions(argv);
  if (o === undefined) return 0;
  let variants = [...standardVariants(), ...(o.threads > 0 ? threadVariants() : []), ...(o.profile ? profileVariants(TSCC_JS) : []), ...(o.limit ? [limitVariant()] : []), ...o.extraVariants];
  // Every run sees the thread count; the single-thread variants' programs use no OpenMP.
  if (o.threads > 0) process.env.OMP_NUM_THREADS = String(o.threads);
  if (o.onlyVariants) variants = variants.filter((v) => v.name === BASELINE || o.onlyVariants!.has(v.name));
  const work = o.builds ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tsopt-bench-'));
  if (o.builds) fs.mkdirSync(o.builds, { recursive: true });
  const dist = path.join(path.dirname(TSCC_JS), '..', 'dist');
  const reuseBuilds = o.builds ? treeDigest([path.dirname(TSCC_JS), dist], notInBuilds(dist)) : undefined;
  const progress = (line: string) => process.stderr.write(`${line}\n`);
  const loadAtStart = loadReading();
  const notes = [gccGraphiteNote(), `load average ${loadAtStart.map((x) => x.toFixed(1)).join(' ')} on ${os.cpus().length} cores at the start`];
  const warnings: string[] = [];
  const warnStart = loadWarning(loadAtStart, 'start');
  if (warnStart) warnings.push(warnStart);
  const openblas = o.limit ? openblasFacts(work) : undefined;
  if (openblas) {
    if ('error' in openblas) warnings.push(`limit: ${openblas.error}`);
    else notes.push(`limit: OpenBLAS kernel ${openblas.corename}, ${openblas.threads} thread(s) (${openblas.config}), OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset`);
  }
  const checkCost = o.checkCost && hasCallgrind();
  if (o.checkCost && !checkCost) notes.push('valgrind not found: check cost not measured');
  if (o.kernelsDir) {
    notes.push(`our kernels are timed by the CPU time inside their kernel calls (-DTSOPT_TIME, clock_gettime(CLOCK_PROCESS_CPUTIME_ID)); ${
      hasPerfTaskClock() ? "the whole process's CPU time (perf stat -e task-clock) is kept as processTimes" : 'perf task-clock unavailable: no process times'}`);
  }
  const planned: { name: string; programs: Program[]; tolerance: Tolerance }[] = [];
  if (o.polybench) {
    planned.push({ name: 'polybench', programs: polybenchPrograms(o.polybench, o.dataset, false, o.kernels), tolerance: POLYBENCH_TOLERANCE });
    if (o.vla) planned.push({ name: 'polybench-vla', programs: polybenchPrograms(o.polybench, o.dataset, true, o.kernels), tolerance: POLYBENCH_TOLERANCE });
  }
  if (o.ublas) planned.push({ name: 'ublas', programs: ublasPrograms(o.dataset, o.kernels), tolerance: PRINTED_E_TOLERANCE });
  if (o.kernelsDir) planned.push({ name: 'kernels', programs: kernelPrograms(o.kernelsDir, o.kernels, o.tiny), tolerance: PRINTED_E_TOLERANCE });
  // The most comparisons the run can make (fewer when a variant fails to build or run): enough
  // rounds for them, unless --repeat says otherwise.
  // TSVC is built by clang -O3, Polly and tscc (and extra variants): gcc and the pipe only when named.
  const tsvcVariants = variants.filter((v) => !['gcc-graphite', 'pipe'].includes(v.name) || o.onlyVariants?.has(v.name));
  const tsvcLoops = o.tsvc ? tsvcPlannedLoops(o.tsvc, o.tsvcLoops) : [];
  // Per program: every variant against clang -O3, and tsopt's against Polly when Polly runs.
  const perProgram = variants.filter((v) => v.name !== BASELINE && v.name !== LIMIT).length
    + (variants.some((v) => v.name === POLLY) ? variants.filter((v) => AGAINST_POLLY.has(v.name)).length : 0);
  const planRule = signTestRule(planned.reduce((n, s) => n + s.programs.length, 0) * perProgram + tsvcLoops.length * (tsvcVariants.length - 1));
  const repeat = o.buildOnly ? 0 : o.repeat ?? planRule.roundsNeeded;
  const minRepeat = o.minRepeat !== undefined && o.minRepeat < repeat ? { rounds: o.minRepeat, rule: planRule } : undefined;
  if (minRepeat) notes.push(`--min-repeat ${minRepeat.rounds}: a program's rounds stop once every verdict of ${repeat} rounds is decided by the rounds taken (a curtailed sign test)`);
  notes.push(`sign test: a variant is slower (faster) than clang -O3 when P(at least that many of its untied rounds below (above) 1 by chance) < ${FAMILY_LEVEL}/comparisons; `
    + `up to ${planRule.comparisons} comparisons need at least ${planRule.roundsNeeded} rounds, the run makes ${repeat}`);
  for (const n of notes) progress(n);
  progress(`tolerances: PolyBench arrays |a-b| <= ${POLYBENCH_TOLERANCE.relative}*max(|a|,|b|) + ${POLYBENCH_TOLERANCE.absolute}; printed %.6e sums <= ${PRINTED_E_TOLERANCE.relative}*max(|a|,|b|)`);
  const suites: SuiteResult[] = planned.map((s) => runSuite(s.name, s.programs, { variants, repeat, minRepeat, work, progress, checkCost, tolerance: s.tolerance, reuseBuilds }));
  if (o.tsvc) suites.push(runTsvc({ dir: o.tsvc, divide: o.tsvcDivide, only: o.tsvcLoops, variants: tsvcVariants, repeat, work, progress }));
  const loadAtEnd = loadReading();
  const warnEnd = loadWarning(loadAtEnd, 'end');
  if (warnEnd) warnings.push(warnEnd);
  const run: BenchRun = {
    date: new Date().toISOString(),
    dataset: o.polybench || o.ublas ? o.dataset : null,
    tiny: o.tiny,
    ...(o.threads > 0 ? { threads: o.threads } : {}),
    ...(openblas ? { openblas } : {}),
    sizes: {
      ...Object.fromEntries(planned.map((s) => [s.name, Object.fromEntries(s.programs.map((p) => [p.name, programSize(p)]))])),
      ...(o.tsvc ? { tsvc: Object.fromEntries(tsvcLoops.map((k) => [k, `iterations/${o.tsvcDivide}`])) } : {}),
    },
    load: { cores: os.cpus().length, start: loadAtStart, end: loadAtEnd },
    tools: toolVersions(variants),
    warnings,
    repeat,
    ...(minRepeat ? { minRepeat: minRepeat.rounds } : {}),
    statistics: judgeRun(suites, undefined, minRepeat ? repeat : undefined),
    tolerances: { polybench: POLYBENCH_TOLERANCE, printed: PRINTED_E_TOLERANCE, ...(o.tsvc ? { tsvc: TSVC_TOLERANCE } : {}) },
    variants: variants.map((v) => ({ name: v.name, command: v.cc.map((w) => (w === process.execPath ? 'node' : w)).join(' ') })),
    notes,
    suites,
  };
  run.notes.push(`load average ${loadAtEnd.map((x) => x.toFixed(1)).join(' ')} at the end`);
  const files = writeReports(run, o.out);
  process.stdout.write(toTable(run));
  for (const w of warnings) process.stderr.write(`bench: warning: ${w}\n`);
  progress(`wrote ${files.join(', ')}`);
  if (!o.builds) fs.rmSync(work, { recursive: true, force: true });
  // Mismatches and build failures are results, not harness failures: exit 0, unless asked otherwise.
  const failed = suites.some((s) => s.programs.some((p) => Object.values(p.variants).some((r) => r.status !== 'ok')));
  return failed && process.env.BENCH_STRICT === '1' ? 1 : 0;
}

/** The size a program was timed at: its size defines (PolyBench's dataset, uBLAS's N) and arguments. */
function programSize(p: Program): string {
  const defines = [...p.flags, ...p.timeFlags].filter((f) => /^-D\w*(DATASET|_N|SIZE)\w*/.test(f));
  return [...defines, ...p.timeArgs].join(' ') || '(built-in)';
}

if (require.main === module) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`bench: error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  }
}

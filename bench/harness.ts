// The benchmark harness behind `npm run bench`: builds each program with every variant,
// checks its output against clang -O3's, times the variants interleaved, and keeps every
// failure (compile error, crash, mismatch) as a result rather than stopping.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildStamp, forgetBuild, isFresh, recordBuild } from './build-cache';
import { measureCheckCost, type CheckCost } from './check-cost';
import { BASELINE, FAMILY_LEVEL, LIMIT, noiseBand, signTestRule, verdictWithRemaining, type NoiseBand, type SignTestRule, type Verdict } from './noise';
import { formatSeconds } from './results-files';
import { profileFlags, profileOutcome, trainProfile, type ProfileKind } from './profile-variant';
import type { SameCodeSummary } from './same-code';

const root = path.resolve(__dirname, '..', '..');
export const TSCC_JS = path.join(root, 'bin', 'tscc.js');
/** The bare pipe (clang | tsopt | llc) as a compiler command (bench/pipe-cc.ts). */
export const PIPE_CC_JS = path.join(root, 'dist', 'bench', 'pipe-cc.js');

/** A way to compile: the command prefix for C and for C++ (flags included). */
export interface Variant {
  name: string;
  cc: string[];
  cxx: string[];
  /** Set when the variant compiles only one language: programs in the other record `n/a`. */
  only?: 'c' | 'cxx';
  /** tscc with a profile (bench/profile-variant.ts): instrumented, or specialized after a training run. */
  profile?: ProfileKind;
  /** The environment its programs run in (default: the bench's). */
  env?: NodeJS.ProcessEnv;
  /** The program this variant builds instead of `p` (written under `dir`), or why it has none (`n/a`): the OpenBLAS limit (bench/limit.ts). */
  rewrite?: (p: Program, dir: string) => Program | { reason: string };
}

export { BASELINE, LIMIT };
export const POLLY = 'polly';

export function standardVariants(): Variant[] {
  const tscc = [process.execPath, TSCC_JS, '-O3', '-march=native'];
  return [
    { name: 'clang', cc: ['clang-14', '-O3', '-march=native'], cxx: ['clang++-14', '-O3', '-march=native'] },
    { name: 'polly', cc: ['clang-14', '-O3', '-march=native', '-mllvm', '-polly'], cxx: ['clang++-14', '-O3', '-march=native', '-mllvm', '-polly'] },
    { name: 'gcc-graphite', cc: ['gcc', '-O3', '-march=native', '-floop-nest-optimize'], cxx: ['g++', '-O3', '-march=native', '-floop-nest-optimize'] },
    { name: 'tscc', cc: tscc, cxx: tscc },
    // C only: the pipe driver compiles .c sources (C++ programs record `n/a`).
    { name: 'pipe', cc: [process.execPath, PIPE_CC_JS, '-O3', '-march=native'], cxx: [process.execPath, PIPE_CC_JS, '-O3', '-march=native'], only: 'c' },
  ];
}

/**
 * `--threads N`: tscc with -fopenmp (its parallel loops on OpenMP's threads) and Polly with
 * -polly-parallel, both linked with libomp; run with OMP_NUM_THREADS=N beside the single-thread
 * variants, whose builds use no OpenMP.
 */
export function threadVariants(): Variant[] {
  const tscc = [process.execPath, TSCC_JS, '-O3', '-march=native', '-fopenmp'];
  const polly = ['-O3', '-march=native', '-mllvm', '-polly', '-mllvm', '-polly-parallel', '-fopenmp'];
  return [
    { name: 'tscc-omp', cc: tscc, cxx: tscc },
    { name: 'polly-omp', cc: ['clang-14', ...polly], cxx: ['clang++-14', ...polly] },
  ];
}

/** `NAME=command words…` from `--variant`: an extra variant (also how tests inject a broken one). */
export function parseVariant(spec: string): Variant {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new Error(`--variant wants NAME=COMMAND, got '${spec}'`);
  const words = spec.slice(eq + 1).trim().split(/\s+/);
  return { name: spec.slice(0, eq), cc: words, cxx: words };
}

/** One program to benchmark: how to build it (sources, flags per purpose) and run it. */
export interface Program {
  name: string;
  cxx: boolean;
  sources: string[];
  flags: string[];
  /** Extra flags for the checking build and the timing build. */
  checkFlags: string[];
  timeFlags: string[];
  checkArgs: string[];
  timeArgs: string[];
  libs: string[];
  /** Where the checked output is: PolyBench dumps arrays to stderr, our kernels print to stdout. */
  checkStream: 'stdout' | 'stderr';
  /**
   * How the run's time is taken: `printed`, seconds the program prints last on stdout (PolyBench's
   * and the uBLAS programs' own wall-clock timers around the kernel; our kernels' CPU time inside
   * the kernel calls, test/kernels/kernel.h's -DTSOPT_TIME); `cpu`, the CPU time of the whole
   * process (perf's task-clock, which a loaded machine disturbs less than wall time; wall time
   * where perf cannot count). Where perf counts, the whole process's CPU time is kept besides a
   * printed time (`processTimes`).
   */
  timing: 'printed' | 'cpu';
}

export interface Tolerance {
  relative: number;
  absolute: number;
}

/** `n/a`: the variant does not compile the program's language (the pipe on C++). */
export type Status = 'ok' | 'compile-error' | 'run-error' | 'mismatch' | 'n/a';

export interface VariantResult {
  status: Status;
  detail?: string;
  times: number[];
  median?: number;
  /** clang -O3's median over this variant's: above 1 is faster. */
  speedup?: number;
  /** Polly's median over this variant's: above 1 is faster than Polly. */
  vsPolly?: number;
  /** The OpenBLAS limit's median over this variant's: the share of the limit's speed it reaches (bench/limit.ts). */
  vsLimit?: number;
  /** A profile-use variant: what its profile offered the timed build (bench/profile-variant.ts). */
  profile?: string;
  /** Per round, clang's time over this variant's in the same round (bench/noise.ts). */
  roundSpeedups?: number[];
  /** The smallest and largest of roundSpeedups: the noise band around `speedup`. */
  spread?: [number, number];
  /** Rounds below and above 1, and the sign test's one-sided p-values for slower and faster (bench/noise.ts). */
  roundsBelow?: number;
  roundsAbove?: number;
  pSlower?: number;
  pFaster?: number;
  /** `slower`/`faster` than clang -O3 beyond noise (p below the run's threshold), else `within-noise`, `not-slower` or `too-few-rounds`. */
  verdict?: Verdict;
  /** tsopt's variants in a run with Polly: the same band and sign test against Polly's times in the same rounds, and its verdict (`slower`: slower than Polly beyond noise). */
  againstPolly?: NoiseBand & { verdict?: Verdict };
  /** With a printed time: the whole process's CPU time per round (perf task-clock), and its median. */
  processTimes?: number[];
  processMedian?: number;
}

export interface ProgramResult {
  name: string;
  variants: Record<string, VariantResult>;
  /** What tsopt's run-time checks cost in this program, or why it was not measured. */
  checkCost?: CheckCost | { error: string };
}

export interface SuiteResult {
  name: string;
  programs: ProgramResult[];
  /** Geometric mean of the speedups of the programs where the variant and clang both ran. */
  geomean: Record<string, number | undefined>;
  /** TSVC: per variant, its loops built to clang -O3's own machine code and the geomeans of those and the others (bench/same-code.ts). */
  sameCode?: Record<string, SameCodeSummary>;
}

/** Builds `p` with `v` into `exe` (a profile-use variant first trains on `inputs`): undefined, or the first error line. */
export function build(v: Variant, p: Program, extra: string[], exe: string, inputs: readonly (readonly string[])[] = []): string | undefined {
  const cmd = p.cxx ? v.cxx : v.cc;
  if (v.profile === 'use') {
    const err = trainProfile(exe, inputs, (flags, out) => build({ ...v, profile: undefined }, p, [...extra, ...flags], out, inputs));
    if (err !== undefined) return err;
  }
  const profile = v.profile ? profileFlags(v.profile, exe) : [];
  const r = spawnSync(cmd[0], [...cmd.slice(1), ...profile, ...p.flags, ...extra, ...p.sources, '-o', exe, ...p.libs], {
    encoding: 'utf8', maxBuffer: 1 << 28,
  });
  if (r.error) return r.error.message;
  if (r.status !== 0) {
    const lines = (r.stderr ?? '').trim().split('\n');
    return lines.find((l) => /error/.test(l)) ?? lines[0] ?? `exit ${r.status}`;
  }
  return undefined;
}

/**
 * `build`, but with `cache` (a toolchain digest, `--builds`) an executable whose stamp matches
 * the build's is reused: 'reused', else what `build` says. Profile variants always build (their
 * training runs are part of the build).
 */
export function buildOrReuse(v: Variant, p: Program, extra: string[], exe: string, inputs: readonly (readonly string[])[], cache: string | undefined): string | undefined | 'reused' {
  if (cache === undefined || v.profile) return build(v, p, extra, exe, inputs);
  const cmd = p.cxx ? v.cxx : v.cc;
  const stamp = buildStamp([...cmd, ...p.flags, ...extra, ...p.sources, '-o', exe, ...p.libs], p.sources, cache, v.env);
  if (isFresh(exe, stamp)) return 'reused';
  forgetBuild(exe);
  const err = build(v, p, extra, exe, inputs);
  if (err === undefined) recordBuild(exe, stamp);
  return err;
}

/** Compares two outputs token by token; numbers within the tolerance are equal. */
export function compareOutputs(expected: string, actual: string, tol: Tolerance): string | undefined {
  const a = expected.trim().split(/\s+/);
  const b = actual.trim().split(/\s+/);
  if (a.length !== b.length) return `output has ${b.length} tokens, expected ${a.length}`;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    const x = Number(a[i].replace(/[,;]$/, '').replace(/^sum=|^wsum=|^n=/, ''));
    const y = Number(b[i].replace(/[,;]$/, '').replace(/^sum=|^wsum=|^n=/, ''));
    if (Number.isNaN(x) || Number.isNaN(y)) return `token ${i}: '${b[i]}' where clang -O3 has '${a[i]}'`;
    if (Math.abs(x - y) > tol.relative * Math.max(Math.abs(x), Math.abs(y)) + tol.absolute) {
      return `value ${i}: ${b[i]} where clang -O3 has ${a[i]}`;
    }
  }
  return undefined;
}

let perfTaskClock: boolean | undefined;

/** Whether `perf stat -e task-clock` works here (a software event: no hardware counters needed). */
export function hasPerfTaskClock(): boolean {
  perfTaskClock ??= /task-clock/.test(spawnSync('perf', ['stat', '-x,', '-e', 'task-clock', 'true'], { encoding: 'utf8' }).stderr ?? '');
  return perfTaskClock;
}

type Timing = Program['timing'] | 'wall';

export interface Run {
  seconds?: number;
  /** The process's CPU time, where perf counted it. */
  processSeconds?: number;
  stdout: string;
  stderr: string;
  error?: string;
}

export function runOnce(exe: string, args: string[], timing: Timing, env?: NodeJS.ProcessEnv): Run {
  const perfOut = `${exe}.perf`;
  const cpu = timing !== 'wall' && hasPerfTaskClock();
  const [cmd, argv] = cpu ? ['perf', ['stat', '-x,', '-e', 'task-clock', '-o', perfOut, '--', exe, ...args]] : [exe, args];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 1 << 30, env });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.error) return { stdout: '', stderr: '', error: r.error.message };
  if (r.status !== 0) return { stdout: r.stdout, stderr: r.stderr, error: `exit ${r.status ?? r.signal}` };
  let processSeconds: number | undefined;
  if (cpu) {
    const ms = Number(/^([0-9.]+),msec,task-clock/m.exec(fs.readFileSync(perfOut, 'utf8'))?.[1]);
    if (!Number.isFinite(ms)) return { stdout: r.stdout, stderr: r.stderr, error: 'perf stat printed no task-clock' };
    processSeconds = ms / 1000;
  }
  if (timing !== 'printed') return { seconds: processSeconds ?? wall, stdout: r.stdout, stderr: r.stderr };
  const printed = Number(r.stdout.trim().split(/\s+/).pop());
  if (!Number.isFinite(printed)) return { stdout: r.stdout, stderr: r.stderr, error: 'no time printed' };
  return { seconds: printed, processSeconds, stdout: r.stdout, stderr: r.stderr };
}

function withoutLastLine(text: string): string {
  return text.replace(/[^\n]*\n?$/, '');
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function geometricMean(xs: readonly number[]): number | undefined {
  if (xs.length === 0) return undefined;
  return Math.exp(xs.reduce((acc, x) => acc + Math.log(x), 0) / xs.length);
}

type Compared = VariantResult & Required<Pick<VariantResult, 'roundsBelow' | 'roundsAbove' | 'pSlower' | 'pFaster'>>;
const hasSignTest = (r: VariantResult): r is Compared => r.pSlower !== undefined;

/** The variants also compared with Polly, round by round (`againstPolly`): tsopt's. */
export const AGAINST_POLLY: ReadonlySet<string> = new Set(['tscc', 'pipe']);

/**
 * Every sign-test comparison of one program's variants: against clang -O3, and tsopt's against
 * Polly. The OpenBLAS limit is a reference, not a compiler: not judged (as the run's plan counts).
 */
function comparisons(variants: Record<string, VariantResult>): { band: Pick<NoiseBand, 'roundsBelow' | 'roundsAbove' | 'roundSpeedups'>; judged: { verdict?: Verdict } }[] {
  return Object.entries(variants).filter(([name]) => name !== LIMIT).flatMap(([, r]) => [
    ...(hasSignTest(r) ? [{ band: { roundsBelow: r.roundsBelow, roundsAbove: r.roundsAbove, roundSpeedups: r.roundSpeedups ?? [] }, judged: r }] : []),
    ...(r.againstPolly ? [{ band: r.againstPolly, judged: r.againstPolly }] : []),
  ]);
}

/**
 * Gives every comparison of the run (each variant against clang -O3 on each program, and tsopt's
 * against Polly, in every suite) its verdict under one sign-test rule: the family is the whole
 * run (bench/noise.ts). With `planned` (`--min-repeat`: a program's rounds may stop early), a
 * comparison with fewer rounds gets the verdict the planned rounds would give, where its rounds
 * already decide it.
 */
export function judgeRun(suites: readonly SuiteResult[], level = FAMILY_LEVEL, planned?: number): SignTestRule {
  const compared = suites.flatMap((s) => s.programs.flatMap((p) => comparisons(p.variants)));
  const rule = signTestRule(compared.length, level);
  for (const c of compared) c.judged.verdict = verdictWithRemaining(c.band, rule, planned === undefined ? 0 : planned - c.band.roundSpeedups.length);
  return rule;
}

/**
 * Whether the comparisons of one program that the run is for already have the verdicts
 * `remaining` more rounds would give them under `rule` (not `too-few-rounds`): tsopt's variants'
 * (against clang -O3 and against Polly) where the run has one, else every variant's. Another
 * compiler's own verdict is not waited for: Polly's plain floyd-warshall, slower than clang -O3
 * in every round at 174 s a run, would otherwise hold the run for all its rounds.
 */
export function programSettled(variants: Record<string, VariantResult>, rule: SignTestRule, remaining: number): boolean {
  const probe: Record<string, VariantResult> = Object.fromEntries(Object.entries(variants).map(([n, r]) => [n, { ...r, times: [...r.times] }]));
  summarizeVariants(probe);
  const ours = Object.keys(probe).some((n) => AGAINST_POLLY.has(n));
  const judged = ours ? Object.fromEntries(Object.entries(probe).filter(([n]) => AGAINST_POLLY.has(n))) : probe;
  return comparisons(judged).every((c) => verdictWithRemaining(c.band, rule, remaining) !== 'too-few-rounds');
}

/** Medians, speedups over clang -O3 and Polly, and the noise band of each timed variant of one program. */
export function summarizeVariants(variants: Record<string, VariantResult>): void {
  const okMedian = (r: VariantResult | undefined) => (r?.status === 'ok' && r.times.length > 0 ? median(r.times) : undefined);
  const baseMedian = okMedian(variants[BASELINE]);
  const pollyMedian = okMedian(variants[POLLY]);
  const limitMedian = okMedian(variants[LIMIT]);
  for (const [name, res] of Object.entries(variants)) {
    if (res.status !== 'ok' || res.times.length === 0) continue;
    res.median = median(res.times);
    if (res.processTimes) res.processMedian = median(res.processTimes);
    if (baseMedian !== undefined && res.median > 0) res.speedup = baseMedian / res.median;
    if (pollyMedian !== undefined && res.median > 0) res.vsPolly = pollyMedian / res.median;
    if (limitMedian !== undefined && res.median > 0 && name !== LIMIT) res.vsLimit = limitMedian / res.median;
    const band = baseMedian !== undefined && name !== BASELINE ? noiseBand(variants[BASELINE].times, res.times) : undefined;
    if (band) Object.assign(res, band);
    const vsPolly = pollyMedian !== undefined && AGAINST_POLLY.has(name) ? noiseBand(variants[POLLY].times, res.times) : undefined;
    if (vsPolly) res.againstPolly = vsPolly;
  }
}

/** Per variant, the geometric mean of its speedups over the programs where it and clang both ran. */
export function suiteGeomeans(results: readonly ProgramResult[], variants: readonly Variant[]): Record<string, number | undefined> {
  const geomean: Record<string, number | undefined> = {};
  for (const v of variants) {
    geomean[v.name] = geometricMean(results.map((r) => r.variants[v.name]?.speedup).filter((s): s is number => s !== undefined));
  }
  return geomean;
}

export interface SuiteOptions {
  variants: Variant[];
  repeat: number;
  /**
   * `--min-repeat`: after this many rounds a program stops as soon as every comparison's verdict
   * at `repeat` rounds under `rule` is decided (`programSettled`).
   */
  minRepeat?: { rounds: number; rule: SignTestRule };
  tolerance: Tolerance;
  work: string;
  progress: (line: string) => void;
  /** Measure the run-time checks' cost with callgrind (bench/check-cost.ts). */
  checkCost: boolean;
  /** `--builds`: the toolchain's digest; executables in `work` whose stamp matches are reused (bench/build-cache.ts). */
  reuseBuilds?: string;
}

/** Builds, checks and times every program of a suite with every variant. */
export function runSuite(name: string, programs: Program[], opts: SuiteOptions): SuiteResult {
  const results: ProgramResult[] = [];
  const dir = path.join(opts.work, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const [n, p] of programs.entries()) {
    const where = `[${name} ${n + 1}/${programs.length}] ${p.name}`;
    const variants: Record<string, VariantResult> = {};
    const timed: Record<string, string> = {};
    const env: Record<string, NodeJS.ProcessEnv> = {};
    let expected: string | undefined;
    for (const v of opts.variants) {
      const checkExe = path.join(dir, `${p.name}.${v.name}.check`);
      const timeExe = path.join(dir, `${p.name}.${v.name}`);
      if (v.only !== undefined && v.only !== (p.cxx ? 'cxx' : 'c')) {
        variants[v.name] = { status: 'n/a', detail: `${v.name} compiles ${v.only === 'c' ? 'C' : 'C++'} only`, times: [] };
        continue;
      }
      const built = v.rewrite ? v.rewrite(p, dir) : p;
      if ('reason' in built) {
        variants[v.name] = { status: 'n/a', detail: built.reason, times: [] };
        continue;
      }
      opts.progress(`${where}: building ${v.name}`);
      // When checking and timing builds are the same, build once (tscc compiles are not cheap).
      const same = p.checkFlags.join(' ') === p.timeFlags.join(' ');
      // A profile is trained on the inputs its build runs on: both when one build is checked and timed.
      const failed = (r: string | undefined): r is string => r !== undefined && r !== 'reused';
      const checked = buildOrReuse(v, built, p.checkFlags, checkExe, same ? [p.checkArgs, p.timeArgs] : [p.checkArgs], opts.reuseBuilds);
      const timedBuild = same || failed(checked) ? checked : buildOrReuse(v, built, p.timeFlags, timeExe, [p.timeArgs], opts.reuseBuilds);
      const err = failed(checked) ? checked : failed(timedBuild) ? timedBuild : undefined;
      if (checked === 'reused' && timedBuild === 'reused') opts.progress(`${where}: ${v.name} reused (--builds)`);
      if (err !== undefined) {
        variants[v.name] = { status: 'compile-error', detail: err, times: [] };
        continue;
      }
      const out = runOnce(checkExe, p.checkArgs, 'wall', v.env);
      if (out.error !== undefined) {
        variants[v.name] = { status: 'run-error', detail: out.error, times: [] };
        continue;
      }
      // One build checked and timed prints its time as the last line of stdout: not compared.
      const text = p.checkStream === 'stdout' ? (same && p.timing === 'printed' ? withoutLastLine(out.stdout) : out.stdout) : out.stderr;
      if (v.name === BASELINE) expected = text;
      const mismatch = expected === undefined ? 'no clang -O3 output to compare with' : compareOutputs(expected, text, opts.tolerance);
      if (mismatch !== undefined) {
        variants[v.name] = { status: 'mismatch', detail: mismatch, times: [] };
        opts.progress(`${where}: ${v.name} MISMATCH: ${mismatch}`);
        continue;
      }
      variants[v.name] = { status: 'ok', times: [] };
      timed[v.name] = same ? checkExe : timeExe;
      if (v.profile === 'use') {
        variants[v.name].profile = profileOutcome(timed[v.name], timed.tscc);
        opts.progress(`${where}: ${v.name}: ${variants[v.name].profile}`);
      }
      if (v.env) env[v.name] = v.env;
    }
    for (let r = 0; r < opts.repeat; r++) {
      const min = opts.minRepeat;
      if (min && r >= min.rounds && programSettled(variants, min.rule, opts.repeat - r)) {
        opts.progress(`${where}: settled after ${r} rounds (--min-repeat)`);
        break;
      }
      opts.progress(`${where}: timing round ${r + 1}/${opts.repeat}`);
      for (const [v, exe] of Object.entries(timed)) {
        const res = variants[v];
        if (res.status !== 'ok') continue;
        const t = runOnce(exe, p.timeArgs, p.timing, env[v]);
        if (t.seconds === undefined) {
          variants[v] = { status: 'run-error', detail: t.error, times: res.times };
        } else {
          res.times.push(t.seconds);
          if (t.processSeconds !== undefined) (res.processTimes ??= []).push(t.processSeconds);
        }
      }
    }
    summarizeVariants(variants);
    const summary = opts.variants
      .map((v) => {
        const r = variants[v.name];
        return `${v.name} ${r.status === 'ok' && r.median !== undefined ? formatSeconds(r.median) : r.status}`;
      })
      .join(', ');
    opts.progress(`${where}: ${summary}`);
    const result: ProgramResult = { name: p.name, variants };
    if (opts.checkCost) {
      opts.progress(`${where}: check cost (callgrind)`);
      const cost = measureCheckCost(p, dir);
      result.checkCost = typeof cost === 'string' ? { error: cost } : cost;
    }
    results.push(result);
  }
  return { name, programs: results, geomean: suiteGeomeans(results, opts.variants) };
}

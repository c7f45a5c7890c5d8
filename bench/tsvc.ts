// TSVC_2 (the University of Bristol HPC group's version of the Callahan–Dongarra–Levine test
// suite for vectorizing compilers: 151 loops in one program, `UoB-HPC/TSVC_2` on GitHub, never
// committed here) as a suite of the bench: each variant builds the program once, every round runs
// each build once in turn, and every loop is a program of the suite, with its own time, checksum,
// speedup and sign test.
//
// The checkout is not changed: its src/ is copied into the run's work directory and patched there
// (patchTsvc): the iteration counts divided, each loop timed by CPU time rather than wall time,
// its time printed in microseconds, and main made to run only the loops named on its command line.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { disassemble, sameCode, type SameCodeSummary } from './same-code';
import { BASELINE, build, compareOutputs, geometricMean, runOnce, summarizeVariants, suiteGeomeans, type Program, type ProgramResult, type SuiteResult, type Tolerance, type Variant, type VariantResult } from './harness';

/** TSVC prints each checksum with `%f`: a build with the same results prints the same text. */
export const TSVC_TOLERANCE: Tolerance = { relative: 0, absolute: 0 };

/** The sources of a TSVC_2 checkout that make its program. */
const SOURCES = ['tsvc.c', 'common.c', 'dummy.c'];

/** The loops main runs, in its order (`time_function(&s000, NULL);` …). */
export function tsvcLoops(tsvcC: string): string[] {
  return [...tsvcC.slice(tsvcC.indexOf('int main(')).matchAll(/^\s*time_function\(&(\w+),/gm)].map((m) => m[1]!);
}

/** The text of tsvc.c and common.h patched for the bench (see the file comment). */
export function patchTsvc(tsvcC: string, commonH: string, divide: number): { tsvcC: string; commonH: string } {
  const iterations = /^#define iterations (\d+)$/m;
  if (!iterations.test(commonH)) throw new Error('TSVC_2: no `#define iterations N` in src/common.h');
  const h = commonH.replace(iterations, (_, n: string) => `#define iterations (${n}/${divide})`);
  const header = '#include "array_defs.h"\n';
  if (!tsvcC.includes(header) || !tsvcC.includes('printf("%10.3f\\t%f\\n", taken, result);')) throw new Error('TSVC_2: src/tsvc.c is not the expected version');
  const timer = `${header}
#include <string.h>
/* bench/tsvc.ts: loops are timed by the process's CPU time, which other processes disturb less
   than wall time; main runs only the loops named on its command line (all without arguments). */
static int tsvc_cpu_time(struct timeval *tv, void *tz) {
  struct timespec ts;
  (void)tz;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  tv->tv_sec = ts.tv_sec;
  tv->tv_usec = ts.tv_nsec / 1000;
  return 0;
}
#define gettimeofday tsvc_cpu_time
static int tsvc_selected(int argc, char **argv, const char *name) {
  if (argc < 2) return 1;
  for (int k = 1; k < argc; k++) if (strcmp(argv[k], name) == 0) return 1;
  return 0;
}
`;
  const c = tsvcC
    .replace(header, timer)
    // One loop runs iterations/LEN_1D times, none once divided: at least once.
    .replace(/\biterations\/LEN_1D\b/g, '(iterations/LEN_1D > 0 ? iterations/LEN_1D : 1)')
    .replace('printf("%10.3f\\t%f\\n", taken, result);', 'printf("%10.6f\\t%f\\n", taken, result);')
    .replace(/^(\s*)time_function\(&(\w+),/gm, (_, indent: string, name: string) => `${indent}if (tsvc_selected(argc, argv, "${name}")) time_function(&${name},`);
  return { tsvcC: c, commonH: h };
}

/** One run's lines `name time checksum`, by loop name. */
export function parseTsvcOutput(stdout: string): Map<string, { seconds: number; checksum: string }> {
  const loops = new Map<string, { seconds: number; checksum: string }>();
  for (const line of stdout.split('\n')) {
    const m = /^\s*(\w+)\t\s*([0-9.]+)\t(\S+)\s*$/.exec(line);
    if (m) loops.set(m[1]!, { seconds: Number(m[2]), checksum: m[3]! });
  }
  return loops;
}

export interface TsvcOptions {
  /** A TSVC_2 checkout (with src/tsvc.c). */
  dir: string;
  /** Iterations divided by this (the suite's own counts take minutes a run). */
  divide: number;
  only?: Set<string>;
  variants: Variant[];
  repeat: number;
  work: string;
  progress: (line: string) => void;
}

/** The loops a run will time: all of the checkout's, or those asked for (unknown names are an error). */
export function tsvcPlannedLoops(dir: string, only?: Set<string>): string[] {
  const src = path.join(dir, 'src', 'tsvc.c');
  if (!fs.existsSync(src)) throw new Error(`${dir} is not a TSVC_2 checkout (no src/tsvc.c)`);
  const all = tsvcLoops(fs.readFileSync(src, 'utf8'));
  if (!only) return all;
  const missing = [...only].filter((k) => !all.includes(k));
  if (missing.length > 0) throw new Error(`no such TSVC loop: ${missing.join(', ')}`);
  return all.filter((k) => only.has(k));
}

/** Builds TSVC_2 with every variant, checks each loop's checksum against clang -O3's and times the loops. */
export function runTsvc(o: TsvcOptions): SuiteResult {
  const loops = tsvcPlannedLoops(o.dir, o.only);
  const srcDir = path.join(o.work, 'tsvc-src');
  fs.mkdirSync(srcDir, { recursive: true });
  for (const f of fs.readdirSync(path.join(o.dir, 'src'))) fs.copyFileSync(path.join(o.dir, 'src', f), path.join(srcDir, f));
  const patched = patchTsvc(fs.readFileSync(path.join(srcDir, 'tsvc.c'), 'utf8'), fs.readFileSync(path.join(srcDir, 'common.h'), 'utf8'), o.divide);
  fs.writeFileSync(path.join(srcDir, 'tsvc.c'), patched.tsvcC);
  fs.writeFileSync(path.join(srcDir, 'common.h'), patched.commonH);
  const program: Program = {
    name: 'tsvc', cxx: false, sources: SOURCES.map((f) => path.join(srcDir, f)), flags: ['-fstrict-aliasing'], checkFlags: [], timeFlags: [],
    checkArgs: [], timeArgs: [], libs: ['-lm'], checkStream: 'stdout', timing: 'printed',
  };
  const args = o.only ? loops : [];
  const results = new Map(loops.map((name): [string, Record<string, VariantResult>] => [name, {}]));
  const exes = new Map<string, string>();
  for (const v of o.variants) {
    o.progress(`[tsvc] building ${v.name}`);
    const exe = path.join(o.work, `tsvc.${v.name}`);
    const err = build(v, program, [], exe);
    for (const r of results.values()) r[v.name] = err === undefined ? { status: 'ok', times: [] } : { status: 'compile-error', detail: err, times: [] };
    if (err === undefined) exes.set(v.name, exe);
  }
  const expected = new Map<string, string>();
  for (let round = 0; round < o.repeat; round++) {
    o.progress(`[tsvc] timing round ${round + 1}/${o.repeat}`);
    for (const [v, exe] of exes) {
      const run = runOnce(exe, args, 'wall');
      const out = run.error === undefined ? parseTsvcOutput(run.stdout) : new Map<string, { seconds: number; checksum: string }>();
      for (const name of loops) {
        const res = results.get(name)![v]!;
        if (res.status !== 'ok') continue;
        const loop = out.get(name);
        if (!loop) {
          results.get(name)![v] = { status: 'run-error', detail: run.error ?? `no line for ${name}`, times: res.times };
          continue;
        }
        if (v === BASELINE && !expected.has(name)) expected.set(name, loop.checksum);
        const want = expected.get(name);
        const mismatch = want === undefined ? 'no clang -O3 checksum to compare with' : compareOutputs(want, loop.checksum, TSVC_TOLERANCE);
        if (mismatch !== undefined) {
          results.get(name)![v] = { status: 'mismatch', detail: `checksum ${loop.checksum} where clang -O3 has ${want ?? 'none'}`, times: [] };
          o.progress(`[tsvc] ${name}: ${v} MISMATCH: ${loop.checksum} where clang -O3 has ${want ?? 'none'}`);
          continue;
        }
        res.times.push(loop.seconds);
      }
    }
  }
  const programs: ProgramResult[] = loops.map((name) => {
    const variants = results.get(name)!;
    summarizeVariants(variants);
    return { name, variants };
  });
  return { name: 'tsvc', programs, geomean: suiteGeomeans(programs, o.variants), sameCode: sameCodeSummaries(exes, programs, o.progress) };
}

/** Per variant built, its loops that are clang -O3's machine code and the geomeans of those and the others (bench/same-code.ts). */
function sameCodeSummaries(exes: ReadonlyMap<string, string>, programs: readonly ProgramResult[], progress: (line: string) => void): Record<string, SameCodeSummary> | undefined {
  const baseExe = exes.get(BASELINE);
  if (baseExe === undefined) return undefined;
  const base = disassemble(baseExe);
  if ('error' in base) {
    progress(`[tsvc] no same-code comparison: ${base.error}`);
    return undefined;
  }
  const summaries: Record<string, SameCodeSummary> = {};
  for (const [v, exe] of exes) {
    if (v === BASELINE) continue;
    const code = disassemble(exe);
    if ('error' in code) {
      progress(`[tsvc] no same-code comparison for ${v}: ${code.error}`);
      continue;
    }
    const same = sameCode(base, code, programs.map((p) => p.name));
    const speedups = (inSame: boolean) => programs.filter((p) => same.has(p.name) === inSame).map((p) => p.variants[v]?.speedup).filter((x): x is number => x !== undefined);
    summaries[v] = { same: [...same], sameGeomean: geometricMean(speedups(true)), changedGeomean: geometricMean(speedups(false)) };
  }
  return summaries;
}

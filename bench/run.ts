// `npm run bench -- …`: PolyBench/C, uBLAS and our own kernels, four compilers each.
//   --polybench DIR     a PolyBench/C 4.2.1 checkout (suites polybench and polybench-vla)
//   --ublas             our Boost uBLAS gemm, 2mm, covariance, correlation (bench/ublas)
//   --kernels-dir DIR   our C kernels (test/kernels): medians and ratios vs clang -O3 and Polly
//   --dataset NAME      MINI SMALL MEDIUM LARGE EXTRALARGE (default LARGE); --tiny: kernels at their test sizes
//   --kernels a,b       only these programs;  --out DIR (default bench-results)
//   --repeat N          rounds (default: the fewest whose sign test can call a difference with the
//                       run's number of comparisons, bench/noise.ts; 11 for 18 kernels x 3 variants)
//   --variant NAME=CMD  an extra variant (e.g. `--variant o2="clang-14 -O2"`); --only-variants a,b
//   --no-vla            skip the C99-VLA PolyBench suite
//   --check-cost        also count the run-time checks' executed instructions (callgrind at the bench
//                       sizes: slow, about 80 min for test/kernels; bench/check-cost.ts)
import * as os from 'node:os';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { hasCallgrind } from './check-cost';
import { BASELINE, hasPerfTaskClock, judgeRun, parseVariant, Program, runSuite, standardVariants, SuiteResult, Tolerance, Variant } from './harness';
import { FAMILY_LEVEL, signTestRule } from './noise';
import { BenchRun, toTable, writeReports } from './results-files';
import { kernelPrograms, polybenchPrograms, POLYBENCH_TOLERANCE, PRINTED_E_TOLERANCE, ublasPrograms } from './suites';

interface Options {
  polybench?: string;
  ublas: boolean;
  kernelsDir?: string;
  dataset: string;
  kernels?: Set<string>;
  /** Undefined: as many rounds as the run's comparisons need (bench/noise.ts). */
  repeat?: number;
  out: string;
  extraVariants: Variant[];
  onlyVariants?: Set<string>;
  vla: boolean;
  tiny: boolean;
  checkCost: boolean;
}

const USAGE = 'usage: npm run bench -- (--polybench DIR | --ublas | --kernels-dir DIR)... [--dataset LARGE] [--kernels a,b] [--repeat N] [--out DIR] [--variant NAME=CMD] [--only-variants a,b] [--no-vla] [--tiny] [--check-cost]';

export function parseOptions(argv: readonly string[]): Options {
  const o: Options = { ublas: false, dataset: 'LARGE', out: 'bench-results', extraVariants: [], vla: true, tiny: false, checkCost: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].includes('=') && argv[i].startsWith('--') ? [argv[i].slice(0, argv[i].indexOf('=')), argv[i].slice(argv[i].indexOf('=') + 1)] : [argv[i], undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
      return v;
    };
    switch (flag) {
      case '--polybench': o.polybench = path.resolve(value()); break;
      case '--ublas': o.ublas = true; break;
      case '--kernels-dir': o.kernelsDir = path.resolve(value()); break;
      case '--dataset': o.dataset = value().toUpperCase(); break;
      case '--kernels': o.kernels = new Set(value().split(',').filter(Boolean)); break;
      case '--repeat': o.repeat = Number(value()); break;
      case '--out': o.out = path.resolve(value()); break;
      case '--variant': o.extraVariants.push(parseVariant(value())); break;
      case '--only-variants': o.onlyVariants = new Set(value().split(',')); break;
      case '--no-vla': o.vla = false; break;
      case '--tiny': o.tiny = true; break;
      case '--check-cost': o.checkCost = true; break;
      case '--no-check-cost': o.checkCost = false; break;
      default: throw new Error(`unknown option ${argv[i]}\n${USAGE}`);
    }
  }
  if (!['MINI', 'SMALL', 'MEDIUM', 'LARGE', 'EXTRALARGE'].includes(o.dataset)) throw new Error(`unknown dataset ${o.dataset}`);
  if (o.repeat !== undefined && (!Number.isInteger(o.repeat) || o.repeat < 1)) throw new Error('--repeat wants a positive integer');
  if (!o.polybench && !o.ublas && !o.kernelsDir) throw new Error(USAGE);
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
  let variants = [...standardVariants(), ...o.extraVariants];
  if (o.onlyVariants) variants = variants.filter((v) => v.name === BASELINE || o.onlyVariants!.has(v.name));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tsopt-bench-'));
  const progress = (line: string) => process.stderr.write(`${line}\n`);
  const notes = [gccGraphiteNote(), `load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} on ${os.cpus().length} cores at the start`];
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
  const planRule = signTestRule(planned.reduce((n, s) => n + s.programs.length, 0) * (variants.length - 1));
  const repeat = o.repeat ?? planRule.roundsNeeded;
  notes.push(`sign test: a variant is slower (faster) than clang -O3 when P(at least that many of its untied rounds below (above) 1 by chance) < ${FAMILY_LEVEL}/comparisons; `
    + `up to ${planRule.comparisons} comparisons need at least ${planRule.roundsNeeded} rounds, the run makes ${repeat}`);
  for (const n of notes) progress(n);
  progress(`tolerances: PolyBench arrays |a-b| <= ${POLYBENCH_TOLERANCE.relative}*max(|a|,|b|) + ${POLYBENCH_TOLERANCE.absolute}; printed %.6e sums <= ${PRINTED_E_TOLERANCE.relative}*max(|a|,|b|)`);
  const suites: SuiteResult[] = planned.map((s) => runSuite(s.name, s.programs, { variants, repeat, work, progress, checkCost, tolerance: s.tolerance }));
  const run: BenchRun = {
    date: new Date().toISOString(),
    dataset: o.dataset,
    repeat,
    statistics: judgeRun(suites),
    tolerances: { polybench: POLYBENCH_TOLERANCE, printed: PRINTED_E_TOLERANCE },
    variants: variants.map((v) => ({ name: v.name, command: v.cc.map((w) => (w === process.execPath ? 'node' : w)).join(' ') })),
    notes,
    suites,
  };
  run.notes.push(`load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} at the end`);
  const files = writeReports(run, o.out);
  process.stdout.write(toTable(run));
  progress(`wrote ${files.join(', ')}`);
  fs.rmSync(work, { recursive: true, force: true });
  // Mismatches and build failures are results, not harness failures: exit 0, unless asked otherwise.
  const failed = suites.some((s) => s.programs.some((p) => Object.values(p.variants).some((r) => r.status !== 'ok')));
  return failed && process.env.BENCH_STRICT === '1' ? 1 : 0;
}

if (require.main === module) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`bench: error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  }
}

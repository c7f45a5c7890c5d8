// Compile time (issue 16): the CPU (user + system, children included) that clang-14,
// clang-14 -mllvm -polly and tscc spend building real sources, side by side in interleaved rounds:
// whole builds of Debian's bzip2, Lua 5.4 and zlib (`make`, as a new user runs it), a C file
// without loops, and PolyBench/C kernels when a checkout is given. Per file (each compiler run
// through `/usr/bin/time -a`) and, for tscc, per stage (TSCC_TIME_STAGES: tscc's start, front
// end, loop scan, tsopt's own stages and passes, post pipeline, back end). `tscc` is tscc with
// TSCC_SERVER=0 (a tsopt process per file); `tscc-server` is tscc as it runs by default, with its
// compile server, each build with a server of its own whose CPU is added to the build's (per
// file: the client's compile plus the server's CPU on its request, from the server's request log;
// the server's start and idle time a row of their own). PolyBench's kernels are each a build of
// their own (a fresh server per kernel), or with `--polybench-one-build` one `make -j1` over all of
// them, as a project's files are (one server for the build: bench/compile-time-one-build.ts).
//
//   node dist/bench/compile-time.js [--projects bzip2,lua,zlib] [--polybench DIR] [--kernels a,b]
//     [--polybench-one-build] [--dataset LARGE] [--rounds 3] [--jobs 1] [--compilers clang,polly,tscc]
//     [--per-file 10] [--out FILE] [--keep DIR] [--baseline DIR (compilers tscc-base, tscc-server-base)]
//
// Figures are medians over the rounds; the load average is printed with them (the machine is shared).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import yargs from 'yargs';
import type { SourceStages } from '../cli/tscc-stages';
import { stopServer } from '../cli/tsopt-client';
import { chargeServer, polybenchFlags, polybenchList, polybenchMakefile, printOneBuild } from './compile-time-one-build';
import { debianSourceTree, LUA_MAKEFILE, NO_LOOPS_C } from './compile-time-sources';
import { categoriesOf, markedSteps, type Category } from './compile-time-categories';

const root = path.resolve(__dirname, '..', '..');
const TSCC_JS = path.join(root, 'bin', 'tscc.js');

interface Compiler {
  readonly name: string;
  readonly command: readonly string[];
  /** Environment of the build; `server` runs tscc with its own compile server, whose CPU is added. */
  readonly server?: boolean;
}

// tscc runs as `make CC=tscc` runs it from node_modules/.bin: bin/tscc.js by its `#!` line (which
// drops NODE_EXTRA_CA_CERTS, loaded by every Node start that sees it), not `node bin/tscc.js`.
const COMPILERS: readonly Compiler[] = [
  { name: 'clang', command: ['clang-14'] },
  { name: 'polly', command: ['clang-14', '-mllvm', '-polly'] },
  { name: 'tscc', command: [TSCC_JS] },
  { name: 'tscc-server', command: [TSCC_JS], server: true },
];

/**
 * tscc of another checkout (built, e.g. an older commit's `git archive` with node_modules linked),
 * as `tscc-base` and `tscc-server-base`: before and after a change in the same interleaved rounds.
 */
function baselineCompilers(dir: string): Compiler[] {
  const js = path.join(path.resolve(dir), 'bin', 'tscc.js');
  if (!fs.existsSync(js)) throw new Error(`--baseline: no ${js}`);
  return [{ name: 'tscc-base', command: [js] }, { name: 'tscc-server-base', command: [js], server: true }];
}

/** One measured build: its total CPU, each compile's CPU by source, and tscc's stages. */
interface Build {
  readonly totalS: number;
  readonly files: Map<string, number>;
  readonly stages: Map<string, number>;
  /** The build's CPU by kind of command (bench/compile-time-categories.ts). */
  readonly categories: Map<string, Category>;
  readonly ok: boolean;
}

/** A thing to build: it gets a fresh directory and a CC, and says what to run there. */
interface Target {
  readonly name: string;
  prepare(dir: string): void;
  readonly commands: (cc: string, jobs: number) => string[];
}

function projectTargets(names: readonly string[]): Target[] {
  const all: Record<string, Target> = {
    bzip2: {
      name: 'bzip2',
      prepare: (dir) => fs.cpSync(debianSourceTree('bzip2'), dir, { recursive: true }),
      commands: (cc, j) => [`make -j${j} CC='${cc}' libbz2.a bzip2 bzip2recover`],
    },
    lua: {
      name: 'lua',
      prepare: (dir) => {
        fs.cpSync(path.join(debianSourceTree('lua5.4'), 'src'), dir, { recursive: true });
        fs.writeFileSync(path.join(dir, 'tsopt.mk'), LUA_MAKEFILE);
        fs.writeFileSync(path.join(dir, 'lua5.4-deb-multiarch.h'), '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"\n');
      },
      commands: (cc, j) => [`make -j${j} -f tsopt.mk CC='${cc}' lua`],
    },
    zlib: {
      name: 'zlib',
      prepare: (dir) => fs.cpSync(debianSourceTree('zlib'), dir, { recursive: true }),
      commands: (cc, j) => [`CC='${cc}' ./configure`, `make -j${j} CC='${cc}'`],
    },
    'no-loops.c': {
      name: 'no-loops.c',
      prepare: (dir) => fs.writeFileSync(path.join(dir, 'no-loops.c'), NO_LOOPS_C),
      commands: (cc) => [`${cc} -O3 -c no-loops.c -o no-loops.o`],
    },
  };
  return names.map((n) => {
    const t = all[n];
    if (!t) throw new Error(`unknown project ${n} (known: ${Object.keys(all).join(', ')})`);
    return t;
  });
}

function polybenchKernels(dir: string, only: Set<string> | undefined): string[] {
  return polybenchList(dir).filter((rel) => !only || only.has(path.basename(rel, '.c')));
}

function polybenchTargets(dir: string, dataset: string, only: Set<string> | undefined): Target[] {
  return polybenchKernels(dir, only).map((rel) => {
    const src = path.join(dir, rel);
    return { name: path.basename(rel, '.c'), prepare: () => undefined, commands: (cc: string) => [`${cc} ${polybenchFlags(dir, src, dataset)} -c ${src} -o kernel.o`] };
  });
}

/** All the kernels as one build, `make -j1` over a Makefile of their objects. */
function polybenchOneBuild(dir: string, dataset: string, only: Set<string> | undefined): Target {
  const makefile = polybenchMakefile(dir, dataset, polybenchKernels(dir, only));
  return { name: 'polybench', prepare: (work) => fs.writeFileSync(path.join(work, 'Makefile'), makefile), commands: (cc) => [`make -j1 CC='${cc}' all`] };
}

/** A shell script that runs the compiler under `/usr/bin/time`, appending `user sys|command` to `log`. */
function writeWrapper(dir: string, compiler: Compiler, log: string): string {
  const file = path.join(dir, `cc-${compiler.name}`);
  const cmd = compiler.command.map((w) => `'${w}'`).join(' ');
  fs.writeFileSync(file, `#!/bin/sh\nexec /usr/bin/time -a -o '${log}' -f '%U %S|%C' ${cmd} "$@"\n`, { mode: 0o755 });
  return file;
}

/** CPU seconds of each compile in a time log, by the C file it compiled (`(other)` for links and the rest). */
function filesOf(log: string): Map<string, number> {
  const files = new Map<string, number>();
  if (!fs.existsSync(log)) return files;
  for (const line of fs.readFileSync(log, 'utf8').split('\n')) {
    const m = /^(\d+\.\d+) (\d+\.\d+)\|(.*)$/.exec(line);
    if (!m) continue;
    const words = m[3]!.split(' ');
    const source = words.includes('-c') ? words.find((w) => /\.c$/.test(w)) : undefined;
    const key = source === undefined ? '(other)' : path.basename(source);
    files.set(key, (files.get(key) ?? 0) + Number(m[1]) + Number(m[2]));
  }
  return files;
}

function stagesOf(file: string): Map<string, number> {
  const stages = new Map<string, number>();
  if (!fs.existsSync(file)) return stages;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line === '') continue;
    for (const s of (JSON.parse(line) as SourceStages).stages) stages.set(s.stage, (stages.get(s.stage) ?? 0) + s.cpuMs / 1000);
  }
  return stages;
}

/** One build of `target` by `compiler`; `keepDir` (`--keep`) receives its logs (time.log, stages.jsonl, requests.jsonl). */
function build(target: Target, compiler: Compiler, jobs: number, round: number, keepDir: string | undefined): Build {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ct-${target.name}-${compiler.name}-`));
  try {
    const work = path.join(dir, 'src');
    fs.mkdirSync(work);
    target.prepare(work);
    const log = path.join(dir, 'time.log');
    const stageFile = path.join(dir, 'stages.jsonl');
    const cc = writeWrapper(dir, compiler, log);
    const script = markedSteps(target.commands(cc, jobs), log).join(' && ');
    // A server of this build's own, started by its first compile: its CPU (the pool's members
    // and the LLVM tools they ran) is not the build's children's, so it is added from its file.
    const requestLog = path.join(dir, 'requests.jsonl');
    const serverEnv = { TSCC_SERVER: '1', TSCC_SERVER_DIR: path.join(dir, 'server'), TSOPT_SERVER_IDLE_SECONDS: '600', TSOPT_SERVER_REQUEST_LOG: requestLog };
    const env = { ...process.env, TSCC_TIME_STAGES: stageFile, ...(compiler.server ? serverEnv : { TSCC_SERVER: '0' }) };
    const r = spawnSync('/usr/bin/time', ['-f', '%U %S', 'sh', '-c', `${script} >/dev/null 2>&1`], { cwd: work, encoding: 'utf8', env });
    const last = (r.stderr ?? '').trim().split('\n').at(-1) ?? '';
    const [user, sys] = last.split(' ').map(Number);
    let serverS = 0;
    if (compiler.server) {
      const cpuFile = path.join(serverEnv.TSCC_SERVER_DIR, 'server.cpu');
      serverS = fs.existsSync(cpuFile) ? Number(fs.readFileSync(cpuFile, 'utf8')) / 1000 : 0;
      stopServer(env);
    }
    const files = compiler.server ? chargeServer(filesOf(log), requestLog, serverS) : filesOf(log);
    if (keepDir !== undefined) {
      const kept = path.join(keepDir, `${target.name}-${compiler.name}-${round + 1}`);
      fs.mkdirSync(kept, { recursive: true });
      for (const f of [log, stageFile, requestLog]) if (fs.existsSync(f)) fs.copyFileSync(f, path.join(kept, path.basename(f)));
    }
    const categories = compiler.name.startsWith('tscc') ? categoriesOf(log, stageFile, requestLog) : categoriesOf(log);
    if (compiler.server && serverS > 0) categories.set('(server: start and idle)', { count: 1, clientS: 0, serverS: serverS - [...categories.values()].reduce((t, c) => t + c.serverS, 0) });
    return { totalS: (user ?? NaN) + (sys ?? NaN) + serverS, files, stages: stagesOf(stageFile), categories, ok: r.status === 0 };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** Medians over the rounds, of the totals and of each key of a per-round map. */
function medianMap(maps: readonly Map<string, number>[]): Map<string, number> {
  const keys = new Set(maps.flatMap((m) => [...m.keys()]));
  return new Map([...keys].map((k) => [k, median(maps.map((m) => m.get(k) ?? 0))]));
}

const fmt = (s: number) => (Number.isFinite(s) ? s.toFixed(2) : 'n/a');
const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : 'n/a');
const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

interface TargetResult {
  readonly name: string;
  readonly totals: Record<string, number>;
  readonly ok: Record<string, boolean>;
  readonly files: Record<string, Record<string, number>>;
  readonly tsccStages: Record<string, number>;
  /** Per compiler, its first round's CPU by kind of command. */
  readonly categories: Record<string, Record<string, Category>>;
}

function measure(targets: readonly Target[], compilers: readonly Compiler[], rounds: number, jobs: number, keepDir?: string): TargetResult[] {
  const runs = new Map<string, Build[]>();
  for (let round = 0; round < rounds; round++) {
    for (const t of targets) {
      for (const c of compilers) {
        const b = build(t, c, jobs, round, keepDir);
        const key = `${t.name}\0${c.name}`;
        runs.set(key, [...(runs.get(key) ?? []), b]);
        process.stderr.write(`round ${round + 1}: ${t.name} ${c.name} ${fmt(b.totalS)} s${b.ok ? '' : ' (FAILED)'} (load ${load()})\n`);
      }
    }
  }
  return targets.map((t) => {
    const of = (c: Compiler) => runs.get(`${t.name}\0${c.name}`) ?? [];
    const files: Record<string, Record<string, number>> = {};
    for (const c of compilers) {
      for (const [file, s] of medianMap(of(c).map((b) => b.files))) (files[file] ??= {})[c.name] = s;
    }
    const tscc = compilers.find((c) => c.name === 'tscc') ?? compilers.find((c) => c.name === 'tscc-server');
    return {
      name: t.name,
      totals: Object.fromEntries(compilers.map((c) => [c.name, median(of(c).map((b) => b.totalS))])),
      ok: Object.fromEntries(compilers.map((c) => [c.name, of(c).every((b) => b.ok)])),
      files,
      tsccStages: tscc ? Object.fromEntries(medianMap(of(tscc).map((b) => b.stages))) : {},
      categories: Object.fromEntries(compilers.map((c) => [c.name, Object.fromEntries(of(c)[0]?.categories ?? [])])),
    };
  });
}

function printResults(title: string, results: readonly TargetResult[], compilers: readonly Compiler[], perFile: number): void {
  const names = compilers.map((c) => c.name);
  console.log(`\n## ${title}: CPU seconds (user + sys, children included), median of rounds\n`);
  console.log(`| target | ${names.join(' | ')} | ${names.filter((n) => n !== 'clang').map((n) => `${n}/clang`).join(' | ')} |`);
  console.log(`| --- | ${names.map(() => '---').join(' | ')} | ${names.filter((n) => n !== 'clang').map(() => '---').join(' | ')} |`);
  const sum = (n: string) => results.reduce((s, r) => s + (r.totals[n] ?? 0), 0);
  for (const r of results) {
    const cells = names.map((n) => `${fmt(r.totals[n]!)}${r.ok[n] ? '' : ' FAILED'}`);
    console.log(`| ${r.name} | ${cells.join(' | ')} | ${names.filter((n) => n !== 'clang').map((n) => ratio(r.totals[n]!, r.totals.clang!)).join(' | ')} |`);
  }
  if (results.length > 1) {
    console.log(`| total | ${names.map((n) => fmt(sum(n))).join(' | ')} | ${names.filter((n) => n !== 'clang').map((n) => ratio(sum(n), sum('clang'))).join(' | ')} |`);
  }
  for (const r of results) {
    // What tscc adds: its first variant measured (a run may have only tscc-server).
    const tsccName = names.find((n) => n.startsWith('tscc')) ?? 'tscc';
    const added = (by: Record<string, number>) => (by[tsccName] ?? 0) - (by.clang ?? 0);
    const rows = Object.entries(r.files).sort((a, b) => added(b[1]) - added(a[1]));
    if (perFile > 0 && rows.length > 1) {
      console.log(`\n${r.name}: the ${Math.min(perFile, rows.length)} files tscc adds most to (of ${rows.length})`);
      for (const [file, by] of rows.slice(0, perFile)) console.log(`  ${file.padEnd(24)} ${names.map((n) => `${n} ${fmt(by[n] ?? NaN)}`).join('  ')}`);
    }
    printCategories(r);
    const stages = Object.entries(r.tsccStages).sort((a, b) => b[1] - a[1]);
    if (stages.length > 0) {
      console.log(`\n${r.name}: tscc's stages (CPU s; "tsopt" is the whole tsopt process, the "tsopt: " rows are inside it)`);
      for (const [stage, s] of stages) console.log(`  ${fmt(s).padStart(7)}  ${stage}`);
    }
  }
}

/** Each compiler's CPU by kind of command, of the first round (a build step with a tscc category: loop-free, unchanged, changed, ...). */
function printCategories(r: TargetResult): void {
  const keys = [...new Set(Object.values(r.categories).flatMap((c) => Object.keys(c)))].sort();
  if (keys.length === 0) return;
  const names = Object.keys(r.categories);
  console.log(`\n${r.name}: CPU s by kind of command (first round; commands, client + server)`);
  for (const k of keys) {
    const cells = names.map((n) => {
      const c = r.categories[n]![k];
      return c === undefined ? `${n} -` : `${n} ${c.count}: ${fmt(c.clientS)}${c.serverS !== 0 ? ` + ${fmt(c.serverS)}` : ''}`;
    });
    console.log(`  ${k.padEnd(28)} ${cells.join('   ')}`);
  }
}

function main(): void {
  const argv = yargs(process.argv.slice(2))
    .option('projects', { type: 'string', default: 'bzip2,lua,zlib,no-loops.c', describe: 'whole builds to measure (bzip2, lua, zlib, no-loops.c), or none' })
    .option('polybench', { type: 'string', describe: 'a PolyBench/C 4.2.1 checkout: compile each kernel with -c' })
    .option('kernels', { type: 'string', describe: 'only these PolyBench kernels' })
    .option('polybench-one-build', { type: 'boolean', default: false, describe: 'the kernels as one make -j1 build (one compile server), not a build each' })
    .option('dataset', { type: 'string', default: 'LARGE' })
    .option('rounds', { type: 'number', default: 3 })
    .option('jobs', { type: 'number', default: 1, describe: 'make -jN' })
    .option('compilers', { type: 'string', default: 'clang,polly,tscc' })
    .option('per-file', { type: 'number', default: 8, describe: 'files listed per project' })
    .option('out', { type: 'string', describe: 'write the results as JSON' })
    .option('baseline', { type: 'string', describe: 'another built checkout of tsopt: compilers tscc-base and tscc-server-base run its bin/tscc.js' })
    .option('keep', { type: 'string', describe: 'copy each build\'s logs (time.log, stages.jsonl, requests.jsonl) to DIR/TARGET-COMPILER-ROUND' })
    .strict()
    .parseSync();
  const known = argv.baseline ? [...COMPILERS, ...baselineCompilers(argv.baseline)] : COMPILERS;
  const compilers = argv.compilers.split(',').map((n) => {
    const c = known.find((x) => x.name === n);
    if (!c) throw new Error(`unknown compiler ${n}${n.endsWith('-base') ? ' (give --baseline DIR)' : ''}`);
    return c;
  });
  console.log(`# compile time, ${new Date().toISOString()}, ${os.cpus().length} cores, load average at start ${load()}`);
  const out: Record<string, unknown> = { date: new Date().toISOString(), loadStart: os.loadavg(), rounds: argv.rounds, jobs: argv.jobs };
  if (argv.projects !== 'none') {
    const results = measure(projectTargets(argv.projects.split(',')), compilers, argv.rounds, argv.jobs, argv.keep);
    printResults(`whole builds (make -j${argv.jobs})`, results, compilers, argv['per-file']);
    out.projects = results;
  }
  if (argv.polybench && argv['polybench-one-build']) {
    const only = argv.kernels ? new Set(argv.kernels.split(',')) : undefined;
    const [result] = measure([polybenchOneBuild(argv.polybench, argv.dataset, only)], compilers, argv.rounds, 1, argv.keep);
    printResults(`PolyBench/C ${argv.dataset} as one build, -O3 -march=native -c`, [result!], compilers, 0);
    printOneBuild(result!.files, result!.totals, compilers.map((c) => c.name));
    out.polybenchOneBuild = result;
  } else if (argv.polybench) {
    const only = argv.kernels ? new Set(argv.kernels.split(',')) : undefined;
    const results = measure(polybenchTargets(argv.polybench, argv.dataset, only), compilers, argv.rounds, 1, argv.keep);
    printResults(`PolyBench/C ${argv.dataset}, -O3 -march=native -c`, results, compilers, 0);
    const tsccName = compilers.find((c) => c.name.startsWith('tscc'))?.name ?? 'tscc';
    const over = results.map((r) => ({ name: r.name, over: (r.totals[tsccName] ?? NaN) - (r.totals.clang ?? NaN) })).sort((a, b) => b.over - a.over);
    if (over.length > 0) console.log(`\nmost ${tsccName} CPU over clang's: ${over.slice(0, 5).map((o) => `${o.name} +${fmt(o.over)} s`).join(', ')}`);
    out.polybench = results;
  }
  console.log(`\nload average at the end ${load()}`);
  out.loadEnd = os.loadavg();
  if (argv.out) fs.writeFileSync(argv.out, JSON.stringify(out, null, 2));
}

main();

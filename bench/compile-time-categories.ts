// Where a whole build's CPU goes, by kind of compiler command (bench/compile-time.ts): each
// command of the build's time log (`/usr/bin/time` per compiler run, a `=N` line before the
// build's N-th shell command) is put in a category by the build step it ran in (`configure` for
// the configure script's test compiles, else `make`) and, for tscc, by what tscc did with its
// source (its TSCC_TIME_STAGES line): `loop-free` (no function can loop: clang-14 compiles it),
// `unchanged` (tsopt kept nothing: clang-14 compiles it again), `changed` (tsopt's output went
// to the back end), `front end failed` (a configure test that does not compile), `clang`
// (a command with a source that went to clang-14 as it was: -E, -O0, ...), and `link/other`
// (no C source). tscc's categories get the server's CPU on their requests too (its request log).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseCommand } from '../cli/tscc-args';
import type { RequestRecord } from '../cli/tsopt-server-protocol';
import type { SourceStages } from '../cli/tscc-stages';

export interface Category {
  /** Compiler commands (each compile of a source counts once). */
  count: number;
  /** CPU seconds of the compiler processes (clang's, or tscc's client with its tools). */
  clientS: number;
  /** CPU seconds of the compile server on their requests. */
  serverS: number;
}

/** One command of a time log: its CPU, its words and the build step it ran in. */
interface Command {
  readonly cpuS: number;
  readonly words: readonly string[];
  readonly step: string;
}

/** The build's shell commands as bench/compile-time.ts runs them: each one's step marked in the time log first. */
export function markedSteps(commands: readonly string[], log: string): string[] {
  return commands.map((c, i) => `echo '=${i} ${/configure/.test(c.split(' ').find((w) => !w.includes('=')) ?? '') ? 'configure' : 'make'}' >> '${log}' && ${c}`);
}

function commandsOf(log: string): Command[] {
  const out: Command[] = [];
  if (!fs.existsSync(log)) return out;
  let step = 'make';
  for (const line of fs.readFileSync(log, 'utf8').split('\n')) {
    const marker = /^=\d+ (\S+)$/.exec(line);
    if (marker) {
      step = marker[1]!;
      continue;
    }
    const m = /^(\d+\.\d+) (\d+\.\d+)\|(.*)$/.exec(line);
    if (m) out.push({ cpuS: Number(m[1]) + Number(m[2]), words: m[3]!.split(' '), step });
  }
  return out;
}

/** What tscc did with a source, from the stages of its TSCC_TIME_STAGES line. */
export function kindOfStages(stages: readonly string[]): string {
  if (stages.some((s) => s.startsWith('loop-free:'))) return 'loop-free';
  if (stages.includes('unchanged: clang-14 -O3')) return 'unchanged';
  if (stages.includes('back end (clang-14)')) return 'changed';
  return 'front end failed';
}

const C_SOURCE = /\.(c|i)$/;

/**
 * The build's CPU by category (`step/kind`). `stagesFile` and `requestLog` are tscc's (absent for
 * clang: its compiles of a source are `step/compile`).
 */
export function categoriesOf(timeLog: string, stagesFile?: string, requestLog?: string): Map<string, Category> {
  const lines: SourceStages[] = stagesFile && fs.existsSync(stagesFile)
    ? fs.readFileSync(stagesFile, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as SourceStages)
    : [];
  const requests: RequestRecord[] = requestLog && fs.existsSync(requestLog)
    ? fs.readFileSync(requestLog, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as RequestRecord)
    : [];
  const out = new Map<string, Category>();
  const add = (key: string, clientS: number, serverS: number): void => {
    const c = out.get(key) ?? { count: 0, clientS: 0, serverS: 0 };
    c.count++;
    c.clientS += clientS;
    c.serverS += serverS;
    out.set(key, c);
  };
  let nextLine = 0;
  let nextRequest = 0;
  for (const cmd of commandsOf(timeLog)) {
    const sources = cmd.words.filter((w) => C_SOURCE.test(w));
    if (sources.length === 0) {
      add(`${cmd.step}/link/other`, cmd.cpuS, 0);
      continue;
    }
    if (stagesFile === undefined) {
      add(`${cmd.step}/compile`, cmd.cpuS, 0);
      continue;
    }
    // tscc's lines come in the order of its commands (make -j1); a command tscc hands to clang as
    // it is (-E, -O0, ...: its own parse of the command says so) writes none.
    const line = lines[nextLine];
    if (parseCommand(cmd.words.slice(1)).passThrough !== undefined || line === undefined || !sources.includes(line.source)) {
      add(`${cmd.step}/clang`, cmd.cpuS, 0);
      continue;
    }
    nextLine++;
    const kind = kindOfStages(line.stages.map((s) => s.stage));
    let serverS = 0;
    const request = requests[nextRequest];
    if (request !== undefined && path.basename(request.source) === path.basename(line.source) && (kind === 'changed' || kind === 'unchanged')) {
      serverS = request.cpuMs / 1000;
      nextRequest++;
    }
    add(`${cmd.step}/${kind}`, cmd.cpuS, serverS);
  }
  return out;
}

// The robustness tests' plumbing: tsopt command lines run in batches (batch-driver.ts, one
// process per core, restarted after a job that kills it or hangs), and the LLVM toolchain run
// asynchronously with time limits so that compiles share the two cores.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../support/tools';
import type { Job, JobOutcome } from './batch-driver';

export type { Job, JobOutcome };

const driverScript = path.join(repoRoot, 'dist', 'test', 'robustness', 'batch-driver.js');
if (!fs.existsSync(driverScript)) {
  throw new Error(`${driverScript} is missing: run bin/setup (or npm run build) before jest`);
}

export interface PassTable {
  /** The names in tsopt's pass registry (what `--passes=` accepts, and `--help` lists). */
  readonly passes: string[];
  /** What tsopt runs without --passes. */
  readonly defaultPipeline: string;
}

export function passTable(): PassTable {
  const r = spawnSync(process.execPath, [driverScript, '--list-passes']);
  if (r.status !== 0) throw new Error(`batch-driver --list-passes failed: ${r.stderr.toString()}`);
  return JSON.parse(r.stdout.toString()) as PassTable;
}

/**
 * Runs `jobs` starting at `first` in one driver process; when the process dies or stops
 * answering for `jobTimeoutMs` during a job, that job is marked dead and a new process
 * continues with the next.
 */
async function runChunk(jobs: readonly Job[], jobFile: string, jobTimeoutMs: number): Promise<JobOutcome[]> {
  const outcomes: JobOutcome[] = [];
  while (outcomes.length < jobs.length) {
    const first = outcomes.length;
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [driverScript, jobFile, String(first)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let pending = '';
      let current = -1;
      let startedAt = Date.now();
      let timedOut = false;
      let err = '';
      const watchdog = setInterval(() => {
        if (current >= 0 && Date.now() - startedAt > jobTimeoutMs) {
          timedOut = true;
          child.kill('SIGKILL');
        }
      }, 1000);
      child.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-4000)));
      child.stdout.on('data', (b: Buffer) => {
        pending += b.toString();
        let nl: number;
        while ((nl = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          if (line.startsWith('start ')) {
            current = Number(line.slice(6));
            startedAt = Date.now();
          } else {
            outcomes.push(JSON.parse(line) as JobOutcome);
            current = -1;
          }
        }
      });
      child.on('error', reject);
      child.on('close', (status, signal) => {
        clearInterval(watchdog);
        if (current >= 0) {
          outcomes.push({
            id: jobs[current].id,
            status: null,
            died: timedOut ? `timeout after ${jobTimeoutMs} ms` : `${signal ?? `exit ${status}`}`,
            stderr: err,
            ms: Date.now() - startedAt,
          });
        } else if (outcomes.length < jobs.length) {
          reject(new Error(`batch driver stopped between jobs (${signal ?? status}): ${err}`));
          return;
        }
        resolve();
      });
    });
  }
  return outcomes;
}

/**
 * Every job's outcome, in the jobs' order, from `width` driver processes (jobs dealt round-robin).
 * `dir` holds the job files.
 */
export async function runTsoptJobs(jobs: readonly Job[], dir: string, width = 2, jobTimeoutMs = 120_000): Promise<JobOutcome[]> {
  const chunks = Array.from({ length: width }, (_, w) => jobs.filter((_, i) => i % width === w)).filter((c) => c.length > 0);
  const results = await Promise.all(
    chunks.map((chunk, w) => {
      const file = path.join(dir, `jobs-${w}-${Date.now()}.json`);
      fs.writeFileSync(file, JSON.stringify(chunk));
      return runChunk(chunk, file, jobTimeoutMs);
    }),
  );
  const byId = new Map(results.flat().map((o) => [o.id, o]));
  return jobs.map((j) => byId.get(j.id) as JobOutcome);
}

/** A problem tsopt had with a job, as one readable line, or undefined when it exited 0. */
export function describeFailure(o: JobOutcome): string | undefined {
  if (o.status === 0) return undefined;
  if (o.status === null) return `${o.id}: the process died (${o.died}) ${o.stderr.split('\n').slice(-3).join(' ')}`.trim();
  const line = o.stderr.split('\n').find((l) => /^tsopt: (internal )?error/.test(l)) ?? o.stderr.slice(0, 300);
  return `${o.id}: exit ${o.status}: ${line}`;
}

export interface ProcResult {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/** A program with a time limit (SIGKILL past it); never rejects on failure. */
export function exec(cmd: string, args: readonly string[], timeoutMs = 60_000, cwd?: string): Promise<ProcResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (b: Buffer) => (stdout = (stdout + b.toString()).slice(-100_000)));
    child.stderr.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-20_000)));
    child.on('error', reject);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr, timedOut });
    });
  });
}

/** Runs `job` over `items` with at most `width` at a time, keeping their order. */
export async function inParallel<T, R>(items: readonly T[], width: number, job: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await job(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}

/** clang's flags for the IR tsopt is meant to see (README's pipe). */
export const PIPE_CLANG_FLAGS = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-emit-llvm', '-c'];

/** llc-14 + link: tsopt's bitcode output to an executable, as the README's pipe does. */
export async function linkBitcode(bitcode: string, exe: string, linkWith: readonly string[] = []): Promise<string | undefined> {
  const obj = `${exe}.o`;
  const llc = await exec('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', bitcode, '-o', obj]);
  if (llc.status !== 0) return `llc-14 failed on ${bitcode}: ${llc.stderr.trim().split('\n')[0]}`;
  const ld = await exec('clang-14', [obj, '-o', exe, ...linkWith]);
  if (ld.status !== 0) return `linking ${obj} failed: ${ld.stderr.trim().split('\n')[0]}`;
  return undefined;
}

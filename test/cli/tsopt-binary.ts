// Running the real `tsopt` binary (node bin/tsopt.js, compiled by `npm run build`) from tests.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot, run, type ToolResult } from '../support/tools';

export const tsoptBin = path.join(repoRoot, 'bin', 'tsopt.js');

if (!fs.existsSync(path.join(repoRoot, 'dist', 'cli', 'tsopt.js'))) {
  throw new Error('dist/cli/tsopt.js is missing: run bin/setup (or npm run build) before jest');
}

/** `tsopt ARGS` with `input` on stdin; never throws on failure. */
export function tsopt(args: readonly string[], input?: Buffer | string, cwd?: string): ToolResult {
  return run(process.execPath, [tsoptBin, ...args], input, cwd);
}

/** Any program, asynchronously (never rejecting on a non-zero exit), so runs can share the two cores. */
export function runAsync(cmd: string, args: readonly string[], input?: Buffer): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (status, signal) =>
      resolve({ status, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString() }),
    );
    child.stdin.on('error', () => undefined); // the program may stop reading early (tsopt on bad input)
    child.stdin.end(input);
  });
}

/** `tsopt ARGS`, asynchronously. */
export function tsoptAsync(args: readonly string[], input?: Buffer): Promise<ToolResult> {
  return runAsync(process.execPath, [tsoptBin, ...args], input);
}

/** Runs `jobs` with at most `width` at a time, keeping their order in the result. */
export async function inParallel<T, R>(items: readonly T[], width: number, job: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await job(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}

/** The one-line error tsopt gives for input it rejects. */
export const ONE_LINE_ERROR = /^tsopt: error: .+: .+\n$/;

// What the OpenMP tests share: tscc with TSOPT_FLAGS, and a run of the program under a thread
// count that also reads --rtc-stats' team counts.
import { spawnSync } from 'node:child_process';
import { tsccOnPath } from '../tscc/support';

/** `tscc args` with TSOPT_FLAGS=`flags` (TSCC_STRICT); throws with its stderr when it fails. */
export function tsccWith(args: readonly string[], flags: string): void {
  const { env } = tsccOnPath({ TSCC_STRICT: '1', TSOPT_FLAGS: flags });
  const r = spawnSync('tscc', args, { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tscc ${args.join(' ')} failed: ${r.stderr}`);
}

/** The program's output under OMP_NUM_THREADS=`threads` and, per function, the teams its first SCoP started (--rtc-stats). */
export function runThreads(exe: string, threads: number, args: readonly string[] = []): { out: string; forks: Record<string, number> } {
  const r = spawnSync(exe, args, { env: { ...process.env, OMP_NUM_THREADS: String(threads) }, encoding: 'utf8' });
  expect(r.status).toBe(0);
  const forks: Record<string, number> = {};
  for (const l of r.stderr.split('\n').filter((x) => x.startsWith('tsopt-rtc: '))) {
    const fn = l.split(' ')[1]!;
    if (!(fn in forks)) forks[fn] = Number(/ parallel=(\d+)/.exec(l)![1]);
  }
  return { out: r.stdout, forks };
}

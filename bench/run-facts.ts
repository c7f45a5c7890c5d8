// What results.json records about the machine and tools of a run: the load average at the start
// and the end (and a warning when it makes the timings doubtful), and every tool's version.
import * as os from 'node:os';
import { toolVersionLine, toolVersions as tsoptVersions } from '../cli/versions';
import type { Variant } from './harness';

/** os.loadavg(): the 1, 5 and 15 minute load averages, to two decimals. */
export function loadReading(): number[] {
  return os.loadavg().map((x) => Math.round(x * 100) / 100);
}

/**
 * A warning when other work competes for the cores: a one-minute load above half the cores at the
 * start, or above that plus the bench's own one process at the end. Timings are medians of
 * interleaved rounds (bench/noise.ts), which stand some noise, but a machine this busy shifts
 * whole rounds; what it says is worth re-running on a quiet machine.
 */
export function loadWarning(load: readonly number[], when: 'start' | 'end', cores = os.cpus().length): string | undefined {
  const limit = cores / 2 + (when === 'end' ? 1 : 0);
  const one = load[0] ?? 0;
  if (one <= limit) return undefined;
  return `load average ${one.toFixed(1)} on ${cores} cores at the ${when} of the run (above ${limit}): other work competed for the CPU, so the timings are doubtful; re-run on a quiet machine`;
}

/** tsopt's, LLVM's and isl's versions, node's, and the first line of each variant's compiler's --version. */
export function toolVersions(variants: readonly Variant[]): Record<string, string> {
  const v = tsoptVersions();
  const tools: Record<string, string> = { tsopt: v.tsopt, llvm: v.llvm, isl: v.isl, node: process.version };
  for (const variant of variants) {
    const cc = variant.cc[0];
    if (cc === undefined || cc === process.execPath || cc in tools) continue;
    tools[cc] = toolVersionLine(cc);
  }
  return tools;
}

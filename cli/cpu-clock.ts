// CPU time of this process and of the children it has waited for, for stage timings
// (`--log-level=debug` records' `cpuMs`, and tscc's TSCC_TIME_STAGES file). Wall time on a
// machine shared by other jobs says little; CPU time (user + system) is what a build pays.
import * as fs from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ: 100 on every Linux ABI Node runs on). */
const TICKS_PER_SECOND = 100;

/** Milliseconds of CPU of the children waited for so far (/proc/self/stat's cutime + cstime), 0 off Linux. */
function childrenCpuMs(): number {
  let stat: string;
  try {
    stat = fs.readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return 0;
  }
  // The fields after the command name (which may hold spaces) start at field 3 (`state`).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cutime = Number(fields[16 - 3]);
  const cstime = Number(fields[17 - 3]);
  return ((cutime + cstime) * 1000) / TICKS_PER_SECOND;
}

/** CPU milliseconds so far: this process (microsecond resolution) plus waited-for children (10 ms). */
export function cpuMsNow(): number {
  const own = process.cpuUsage();
  return (own.user + own.system) / 1000 + childrenCpuMs();
}

let startupTaken = false;

/**
 * CPU milliseconds this process spent before the first call: Node's start and the modules loaded
 * so far. 0 on later calls: a compile server's process starts once for many runs.
 */
export function startupCpuMs(): number {
  if (startupTaken) return 0;
  startupTaken = true;
  const own = process.cpuUsage();
  return (own.user + own.system) / 1000;
}

/** Rounds milliseconds to a tenth for log records. */
export function roundMs(ms: number): number {
  return Math.round(ms * 10) / 10;
}

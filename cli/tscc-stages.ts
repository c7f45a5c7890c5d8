// TSCC_TIME_STAGES=FILE: tscc appends one JSON line per compiled source to FILE, with the CPU
// milliseconds (user + system, children included) of each step: tscc's own start, the front
// end, tsopt's stages (from its `--log-level=debug` records, whose `cpuMs` cli/run.ts adds) or
// the loop-free short way, and the back end. bench/compile-time.ts reads these lines.
import * as fs from 'node:fs';
import { cpuMsNow, roundMs } from './cpu-clock';

export interface StageTime {
  readonly stage: string;
  readonly cpuMs: number;
}

/** One line of a TSCC_TIME_STAGES file. */
export interface SourceStages {
  readonly source: string;
  readonly stages: readonly StageTime[];
}

/** tsopt's flags that make it write its stage records as JSON on stderr. */
export const TSOPT_STAGE_FLAGS = ['--log-level=debug', '--log-format=json'];

export class StageClock {
  private stages: StageTime[] = [];

  constructor(private readonly file: string | undefined, startupMs: number) {
    if (file !== undefined) this.stages.push({ stage: 'tscc start (node)', cpuMs: roundMs(startupMs) });
  }

  get enabled(): boolean {
    return this.file !== undefined;
  }

  /** Runs `body`, recording its CPU time as `stage` when enabled. */
  time<T>(stage: string, body: () => T): T {
    if (!this.enabled) return body();
    const t0 = cpuMsNow();
    try {
      return body();
    } finally {
      this.stages.push({ stage, cpuMs: roundMs(cpuMsNow() - t0) });
    }
  }

  /** `time` for a body that returns a promise: its CPU from the call until it settles. */
  async timeAsync<T>(stage: string, body: () => Promise<T>): Promise<T> {
    if (!this.enabled) return body();
    const t0 = cpuMsNow();
    try {
      return await body();
    } finally {
      this.stages.push({ stage, cpuMs: roundMs(cpuMsNow() - t0) });
    }
  }

  /**
   * tsopt's stderr with its debug records taken out (as stages `tsopt: <what>`) and its other
   * records put back as the text lines tsopt would have printed without the JSON flag.
   */
  takeTsoptRecords(stderr: string): string {
    // Loaded here: pino (under ./log) costs every tscc start 20 ms of CPU otherwise.
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const { formatRecord } = require('./log') as typeof import('./log');
    const kept: string[] = [];
    for (const line of stderr.split('\n')) {
      if (line === '') continue;
      let record: Record<string, unknown> | undefined;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        record = undefined;
      }
      if (record === undefined || typeof record.level !== 'number') kept.push(`${line}\n`);
      else if (record.level <= 20) {
        if (typeof record.cpuMs === 'number') this.stages.push({ stage: `tsopt: ${String(record.pass ?? record.msg)}`, cpuMs: record.cpuMs });
      } else kept.push(formatRecord(line));
    }
    return kept.join('');
  }

  /** Appends the source's line and starts over for the next source of the command. */
  flush(source: string): void {
    if (this.file === undefined) return;
    const line: SourceStages = { source, stages: this.stages };
    fs.appendFileSync(this.file, `${JSON.stringify(line)}\n`);
    this.stages = [];
  }
}

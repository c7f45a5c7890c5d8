// Runs many tsopt command lines in one process, through the command's own `main` (flags
// included), so a batch of random modules does not pay node's start-up and llvm-bindings'
// load once per module: `node dist/test/robustness/batch-driver.js JOBS.json FIRST`.
// JOBS.json is `[{ "id": "...", "args": ["in.bc", "-o", "out.bc", ...] }, ...]`.
// For every job from FIRST on it writes `start <index>` and then one JSON `JobOutcome` line to
// stdout, synchronously, so that when a job kills the process (a native crash in llvm-bindings,
// an abort in isl) the parent knows which job it was and restarts from the next one
// (see batch.ts). `node batch-driver.js --list-passes` prints the registered pass names and the default pipeline.
import * as fs from 'node:fs';
import { DEFAULT_PIPELINE, main } from '../../cli/tsopt';
import type { CliIo } from '../../cli/run';
import { passRegistry } from '../../passes/registry';

export interface Job {
  readonly id: string;
  readonly args: readonly string[];
}

export interface JobOutcome {
  readonly id: string;
  /** tsopt's exit code: 0 fine, 1 user error, 2 internal error; null when the process died. */
  readonly status: number | null;
  /** The signal or reason the batch process died on this job (`SIGSEGV`, `timeout`, …). */
  readonly died?: string;
  /** What tsopt wrote to stderr (the printers' output cut short). */
  readonly stderr: string;
  readonly ms: number;
}

const STDERR_KEEP = 6000;

function runJob(job: Job): JobOutcome {
  let stderr = '';
  const io: CliIo = {
    readStdin: () => Buffer.alloc(0),
    writeStdout: () => undefined,
    writeStderr: (text) => {
      if (stderr.length < STDERR_KEEP) stderr += text;
      else if (/tsopt: (internal )?error/.test(text)) stderr += text;
    },
    stdoutIsTerminal: false,
  };
  const start = process.hrtime.bigint();
  const status = main([...job.args], io);
  return { id: job.id, status, stderr, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

if (require.main === module) {
  const write = (line: string) => fs.writeSync(1, `${line}\n`);
  if (process.argv[2] === '--list-passes') {
    write(JSON.stringify({ passes: [...passRegistry.keys()], defaultPipeline: DEFAULT_PIPELINE }));
  } else {
    // Stacks of internal errors go to stderr (reportFailure reads this), so bug reports carry them.
    process.env.TSOPT_DEBUG = '1';
    const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')) as Job[];
    for (let i = Number(process.argv[3] ?? 0); i < jobs.length; i++) {
      write(`start ${i}`);
      write(JSON.stringify(runJob(jobs[i])));
    }
  }
}

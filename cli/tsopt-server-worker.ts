// One member of the tsopt compile server's pool (cli/tsopt-server.ts): a child process that loads
// tsopt once and runs the requests it is sent, each exactly as the `tsopt` command would
// (`main`), its stderr captured. A process rather than a worker thread: llvm-bindings' native
// module aborts Node when called from a second thread. Staying loaded is the point: no Node
// start, no module loading, and V8's code stays compiled and optimized from one file of a build
// to the next (tsopt's own CPU on bzip2's and zlib's sources fell by a third from the first to
// the second run in one process).
import { cpuMsNow } from './cpu-clock';
import { main } from './tsopt';

export interface WorkerRequest {
  readonly id: number;
  readonly args: readonly string[];
}

export interface WorkerReply {
  readonly id: number;
  readonly status: number;
  readonly stderr: string;
  /** This process's CPU so far, the LLVM tools it ran included (the server's accounting). */
  readonly cpuMs: number;
  /** Of which this request's. */
  readonly requestCpuMs: number;
}

process.on('message', (req: WorkerRequest) => {
  const before = cpuMsNow();
  let stderr = '';
  const io = {
    readStdin: (): Buffer => {
      throw new Error('the tsopt server reads no stdin');
    },
    writeStdout: (): void => {
      throw new Error('the tsopt server writes no stdout');
    },
    writeStderr: (text: string): void => {
      stderr += text;
    },
    stdoutIsTerminal: false,
  };
  const status = main([...req.args], io);
  const cpuMs = cpuMsNow();
  const reply: WorkerReply = { id: req.id, status, stderr, cpuMs, requestCpuMs: cpuMs - before };
  process.send?.(reply);
});
// The server gone (its IPC channel closed): nothing is left to do.
process.on('disconnect', () => process.exit(0));

// The CLI's I/O for in-process runs of `execute`: no stdin, stdout dropped, stderr kept.
import type { CliIo } from '../../cli/run';

export interface CapturedIo {
  readonly io: CliIo;
  /** Everything written to stderr so far. */
  stderr(): string;
}

export function capturingIo(): CapturedIo {
  let stderr = '';
  return {
    io: {
      readStdin: () => Buffer.alloc(0),
      writeStdout: () => undefined,
      writeStderr: (text) => void (stderr += text),
      stdoutIsTerminal: false,
    },
    stderr: () => stderr,
  };
}

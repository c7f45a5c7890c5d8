// Where the tsopt compile server lives and what tscc and it say to each other (one JSON line
// each way over a Unix socket). One server per user and build of tsopt: its directory is private
// to the user (created 0700, refused if someone else owns it or others may write to it).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface ServerPaths {
  readonly dir: string;
  /** The Unix socket the server listens on. */
  readonly socket: string;
  /** The server's pid, created exclusively: the lock that makes it the only one. */
  readonly pid: string;
  /** The server's CPU milliseconds so far (its threads and the LLVM tools they ran), rewritten after each request. */
  readonly cpu: string;
}

/**
 * The request: tsopt's arguments (input and output files absolute), and the source tscc compiles
 * (for the server's request log only). SIGTERM stops the server.
 */
export type ServerRequest = { readonly args: readonly string[]; readonly source?: string };

/**
 * One line of the request log (TSOPT_SERVER_REQUEST_LOG=FILE in the environment the server
 * starts with): the CPU milliseconds the pool process spent on one request, the LLVM tools it ran
 * included. The server's own CPU and its processes' start and idle time are in no request.
 */
export interface RequestRecord {
  readonly source: string;
  readonly cpuMs: number;
  readonly status: number;
}

/** The answer: tsopt's exit status and stderr; `serverError` when the server, not tsopt, failed. */
export interface ServerReply {
  readonly status: number;
  readonly stderr: string;
  readonly serverError?: string;
}

/**
 * The server's directory: TSCC_SERVER_DIR, else one per user and per build of tsopt under the
 * temp directory. A server keeps the tsopt it loaded until it goes idle: keyed by the user alone,
 * a server of another checkout, or of this one before `npm run build`, would answer.
 */
export function serverPaths(env: NodeJS.ProcessEnv = process.env, build: string = buildIdentity()): ServerPaths {
  const dir = env.TSCC_SERVER_DIR || path.join(os.tmpdir(), `tsopt-server-${os.userInfo().uid}-${build}`);
  return { dir, socket: path.join(dir, 'server.sock'), pid: path.join(dir, 'server.pid'), cpu: path.join(dir, 'server.cpu') };
}

/**
 * This build of tsopt: a short hash of where its compiled code is and when its entry points were
 * last written (the build rewrites them). Unreadable files count as a build of their own.
 */
export function buildIdentity(distCli: string = __dirname): string {
  const stamps = ['tsopt.js', 'tsopt-server.js', 'tsopt-server-worker.js'].map((f) => {
    try {
      return String(fs.statSync(path.join(distCli, f)).mtimeMs);
    } catch {
      return '-';
    }
  });
  return createHash('sha256').update([path.resolve(distCli), ...stamps].join('\n')).digest('hex').slice(0, 12);
}

/** Creates the directory if needed; false when it is not safely ours (then no server is used). */
export function ensurePrivateDir(dir: string): boolean {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = fs.statSync(dir);
    return st.isDirectory() && st.uid === os.userInfo().uid && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

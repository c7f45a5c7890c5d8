// tscc's side of the tsopt compile server (cli/tsopt-server.ts): one JSON line each way over the
// server's Unix socket, spoken from tscc's own event loop (tscc awaits it; a worker thread to
// wait on it synchronously cost each file about 35 ms of CPU to start). Every way the server can
// be missing or wrong (no server, a stale socket, a server killed in the middle of a request, a
// reply that is not one) gives `undefined`, and tscc runs tsopt itself: the object is the same
// either way.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { ensurePrivateDir, serverPaths, type ServerReply, type ServerRequest } from './tsopt-server-protocol';
import { nodeChildEnv } from './tscc-env';

/** What the server said, or why it said nothing (`error`: ENOENT, ECONNREFUSED, ...). */
function talk(socket: string, request: ServerRequest): Promise<{ reply?: ServerReply; error?: string }> {
  return new Promise((resolve) => {
    let done = false;
    let data = '';
    const finish = (r: { reply?: ServerReply; error?: string }): void => {
      if (done) return;
      done = true;
      resolve(r);
    };
    // No timeout of our own: tsopt's budgets bound a request, and a dead server closes the socket.
    const s = net.connect(socket);
    s.setEncoding('utf8');
    s.on('connect', () => s.write(`${JSON.stringify(request)}\n`));
    s.on('data', (c: string) => {
      data += c;
    });
    s.on('error', (e: NodeJS.ErrnoException) => finish({ error: e.code ?? e.message }));
    s.on('close', () => {
      if (!data.endsWith('\n')) return finish({ error: 'no reply' });
      try {
        finish({ reply: JSON.parse(data) as ServerReply });
      } catch {
        finish({ error: 'bad reply' });
      }
    });
  });
}

/**
 * Starts a server in the background (it exits at once if another one holds the lock), in `/`:
 * it outlives the build, whose directory may be removed (requests name their files absolutely).
 */
function startServer(env: NodeJS.ProcessEnv): void {
  try {
    const child = spawn(process.execPath, [path.join(__dirname, 'tsopt-server.js')], { detached: true, stdio: 'ignore', env: nodeChildEnv(env), cwd: '/' });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // no server this time: tscc runs tsopt itself
  }
}

/** How long the compile that starts a server waits for it to listen. */
const SERVER_START_WAIT_MS = 5000;

/** `talk`, tried every 25 ms while nothing listens on the socket yet, for at most `waitMs`. */
async function talkOnceListening(socket: string, request: ServerRequest, waitMs: number): Promise<{ reply?: ServerReply; error?: string }> {
  const until = Date.now() + waitMs;
  for (;;) {
    await new Promise((r) => setTimeout(r, 25));
    const r = fs.existsSync(socket) ? await talk(socket, request) : { error: 'ENOENT' };
    if (r.reply !== undefined || (r.error !== 'ENOENT' && r.error !== 'ECONNREFUSED') || Date.now() >= until) return r;
  }
}

/**
 * tsopt's run with `args` on the server: its status and stderr, or undefined when tscc must run
 * tsopt itself (no server, and none listening within SERVER_START_WAIT_MS of starting one; or
 * the server failed).
 * A tsopt internal error (status 2) is also left to a run of tsopt's own, so that a problem of
 * the server's long-lived state can never become the build's.
 */
export async function runOnServer(args: readonly string[], env: NodeJS.ProcessEnv = process.env, source?: string): Promise<{ status: number; stderr: string } | undefined> {
  const paths = serverPaths(env);
  if (!ensurePrivateDir(paths.dir)) return undefined;
  const request: ServerRequest = { args, source };
  let { reply, error } = fs.existsSync(paths.socket) ? await talk(paths.socket, request) : { error: 'ENOENT' };
  if (reply === undefined && (error === 'ENOENT' || error === 'ECONNREFUSED')) {
    startServer(env);
    // The server loads tsopt once for the build; waiting for it to listen costs less than
    // loading tsopt here as well (about 0.6 s of CPU per build). No answer in time: tscc runs
    // tsopt itself.
    ({ reply, error } = await talkOnceListening(paths.socket, request, SERVER_START_WAIT_MS));
  }
  if (reply === undefined) return undefined;
  if (reply.serverError !== undefined || reply.status === 2) return undefined;
  return { status: reply.status, stderr: reply.stderr };
}

/**
 * Asks the server to stop (bench/compile-time.ts, tests) with SIGTERM, on which it removes its
 * socket and pid file; false when no live server holds the pid file.
 */
export function stopServer(env: NodeJS.ProcessEnv = process.env): boolean {
  try {
    const pid = Number(fs.readFileSync(serverPaths(env).pid, 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0) return false;
    process.kill(pid, 'SIGTERM');
    return true;
  } catch {
    return false;
  }
}

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
    const child = spawn(process.execPath, [path.join(__dirname, 'tsopt-server.js')], { detached: true, stdio: 'ignore', env, cwd: '/' });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // no server this time: tscc runs tsopt itself
  }
}

/**
 * tsopt's run with `args` on the server: its status and stderr, or undefined when tscc must run
 * tsopt itself (no server yet: one is started for the next files; or the server failed).
 * A tsopt internal error (status 2) is also left to a run of tsopt's own, so that a problem of
 * the server's long-lived state can never become the build's.
 */
export async function runOnServer(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<{ status: number; stderr: string } | undefined> {
  const paths = serverPaths(env);
  if (!ensurePrivateDir(paths.dir)) return undefined;
  const { reply, error } = fs.existsSync(paths.socket) ? await talk(paths.socket, { args }) : { error: 'ENOENT' };
  if (reply === undefined) {
    if (error === 'ENOENT' || error === 'ECONNREFUSED') startServer(env);
    return undefined;
  }
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

// tscc's side of the tsopt compile server (cli/tsopt-server.ts). tscc is synchronous (one
// compile after another, as clang), so the socket is spoken to from a short-lived worker thread
// while tscc's thread waits on it. Every way the server can be missing or wrong (no server, a
// stale socket, a server killed in the middle of a request, a reply that is not one) gives
// `undefined`, and tscc runs tsopt itself: the object is the same either way.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { ensurePrivateDir, serverPaths, type ServerReply, type ServerRequest } from './tsopt-server-protocol';

/** The thread's code: connect, send the request, hand back the reply (or why there is none). */
const TALK = `
const { workerData } = require('node:worker_threads');
const net = require('node:net');
const { port, socket, request, flag } = workerData;
let done = false;
const finish = (message) => {
  if (done) return;
  done = true;
  port.postMessage(message);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
};
let data = '';
const s = net.connect(socket);
s.setEncoding('utf8');
s.on('connect', () => s.write(request));
s.on('data', (c) => { data += c; });
s.on('error', (e) => finish({ error: e.code || e.message }));
s.on('close', () => finish(data.endsWith('\\n') ? { reply: data } : { error: 'no reply' }));
`;

/** What the server said, or why it said nothing (`error`: ENOENT, ECONNREFUSED, ...). */
function talk(socket: string, request: ServerRequest): { reply?: ServerReply; error?: string } {
  const { port1, port2 } = new MessageChannel();
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(TALK, { eval: true, workerData: { port: port2, socket, request: `${JSON.stringify(request)}\n`, flag }, transferList: [port2] });
  worker.unref();
  // No timeout of our own: tsopt's budgets bound a request, and a dead server closes the socket.
  Atomics.wait(flag, 0, 0);
  const got = receiveMessageOnPort(port1)?.message as { reply?: string; error?: string } | undefined;
  void worker.terminate();
  port1.close();
  if (!got || got.error !== undefined) return { error: got?.error ?? 'no reply' };
  try {
    return { reply: JSON.parse(got.reply!) as ServerReply };
  } catch {
    return { error: 'bad reply' };
  }
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
export function runOnServer(args: readonly string[], env: NodeJS.ProcessEnv = process.env): { status: number; stderr: string } | undefined {
  const paths = serverPaths(env);
  if (!ensurePrivateDir(paths.dir)) return undefined;
  const { reply, error } = fs.existsSync(paths.socket) ? talk(paths.socket, { args }) : { error: 'ENOENT' };
  if (reply === undefined) {
    if (error === 'ENOENT' || error === 'ECONNREFUSED') startServer(env);
    return undefined;
  }
  if (reply.serverError !== undefined || reply.status === 2) return undefined;
  return { status: reply.status, stderr: reply.stderr };
}

/** Asks the server to stop (bench/compile-time.ts, tests); false when none answered. */
export function stopServer(env: NodeJS.ProcessEnv = process.env): boolean {
  const paths = serverPaths(env);
  return fs.existsSync(paths.socket) && talk(paths.socket, { shutdown: true }).reply !== undefined;
}

// The tsopt compile server (issue 16): `tscc` (unless TSCC_SERVER=0) hands each source's tsopt run
// to it instead of starting a Node process per file. Started on demand by tscc (detached), one
// per user (an exclusive pid file is the lock; a dead owner's files are cleared), it runs up to
// one request per core at once on a pool of child processes, each with tsopt loaded
// (cli/tsopt-server-worker.ts), and exits when idle.
// Anything wrong on the server's side makes tscc run tsopt itself (cli/tsopt-client.ts).
//
//   node dist/cli/tsopt-server.js   (TSCC_SERVER_DIR, TSOPT_SERVER_IDLE_SECONDS, TSOPT_SERVER_PROCESSES,
//     TSOPT_SERVER_REQUEST_LOG)
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fork, type ChildProcess } from 'node:child_process';
import { cpuMsNow } from './cpu-clock';
import { ensurePrivateDir, serverPaths, type RequestRecord, type ServerPaths, type ServerReply, type ServerRequest } from './tsopt-server-protocol';
import type { WorkerReply, WorkerRequest } from './tsopt-server-worker';

const IDLE_MS = Number(process.env.TSOPT_SERVER_IDLE_SECONDS ?? 120) * 1000;
const PROCESSES = Math.max(1, Number(process.env.TSOPT_SERVER_PROCESSES) || os.cpus().length);
/** Where each request's CPU is appended (bench/compile-time.ts charges it to the source's compile). */
const REQUEST_LOG = process.env.TSOPT_SERVER_REQUEST_LOG || undefined;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock (the pid file); false when a live server holds it. A dead server's pid file and socket are removed. */
function lock(paths: ServerPaths): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(paths.pid, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      fs.rmSync(paths.socket, { force: true });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = Number(fs.readFileSync(paths.pid, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && alive(owner)) return false;
      fs.rmSync(paths.pid, { force: true });
    }
  }
  return false;
}

interface Job {
  readonly args: readonly string[];
  readonly source?: string;
  readonly reply: (r: ServerReply) => void;
}

class Pool {
  private readonly idle: ChildProcess[] = [];
  private readonly busy = new Map<ChildProcess, Job>();
  private readonly queue: Job[] = [];
  /** Members replaced after a failure: their later `exit` event is not a second failure. */
  private readonly retired = new Set<ChildProcess>();
  private nextId = 0;
  /** Each member's CPU so far, as it last said (the server's own CPU does not include live children). */
  private readonly memberCpuMs = new Map<ChildProcess, number>();
  private retiredCpuMs = 0;

  /** Members are started when a request finds none idle, up to `size`: a `make -j1` build keeps one busy. */
  constructor(private readonly size: number, private readonly onSettled: () => void) {}

  get active(): number {
    return this.busy.size + this.queue.length;
  }

  submit(job: Job): void {
    this.queue.push(job);
    this.dispatch();
  }

  /** CPU milliseconds of the pool's members so far. */
  get cpuMs(): number {
    return this.retiredCpuMs + [...this.memberCpuMs.values()].reduce((a, b) => a + b, 0);
  }

  private start(): ChildProcess {
    const w = fork(path.join(__dirname, 'tsopt-server-worker.js'), [], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    w.on('message', (r: WorkerReply) => {
      this.memberCpuMs.set(w, r.cpuMs);
      const job = this.busy.get(w);
      if (REQUEST_LOG !== undefined && job !== undefined) {
        const record: RequestRecord = { source: job.source ?? '', cpuMs: Math.round(r.requestCpuMs * 10) / 10, status: r.status };
        fs.appendFileSync(REQUEST_LOG, `${JSON.stringify(record)}\n`);
      }
      this.settle(w, { status: r.status, stderr: r.stderr }, true);
    });
    // A dead member (a crash, memory, a kill) fails its request over to tscc and is replaced.
    w.on('error', (e) => this.settle(w, { status: 1, stderr: '', serverError: e.message }, false));
    w.on('exit', (code, signal) => this.settle(w, { status: 1, stderr: '', serverError: `pool process exited (${code ?? signal})` }, false));
    return w;
  }

  private settle(w: ChildProcess, reply: ServerReply, reusable: boolean): void {
    if (this.retired.has(w)) return;
    const job = this.busy.get(w);
    this.busy.delete(w);
    if (reusable) this.idle.push(w);
    else {
      const i = this.idle.indexOf(w);
      if (i >= 0) this.idle.splice(i, 1);
      this.retired.add(w);
      this.retiredCpuMs += this.memberCpuMs.get(w) ?? 0;
      this.memberCpuMs.delete(w);
      w.kill();
    }
    // The server's CPU file is written before the reply: a build that ends with this compile
    // finds it up to date (bench/compile-time.ts reads it then).
    this.onSettled();
    job?.reply(reply);
    this.dispatch();
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      if (this.idle.length === 0) {
        if (this.busy.size >= this.size) return;
        this.idle.push(this.start());
      }
      const w = this.idle.pop()!;
      const job = this.queue.shift()!;
      this.busy.set(w, job);
      const req: WorkerRequest = { id: this.nextId++, args: job.args };
      w.send(req);
    }
  }

  close(): void {
    for (const w of [...this.idle, ...this.busy.keys()]) this.retired.add(w);
    for (const w of [...this.idle, ...this.busy.keys()]) w.kill();
  }
}

function serve(paths: ServerPaths): void {
  let idleTimer: NodeJS.Timeout | undefined;
  const stop = (): void => {
    try {
      // Only our own files: a newer server may have taken the lock after ours went stale.
      if (fs.readFileSync(paths.pid, 'utf8').trim() === String(process.pid)) {
        fs.rmSync(paths.socket, { force: true });
        fs.rmSync(paths.pid, { force: true });
      }
    } catch {
      // already gone
    }
    pool.close();
    server.close();
    process.exit(0);
  };
  const rearm = (): void => {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = pool.active === 0 ? setTimeout(stop, IDLE_MS) : undefined;
  };
  const pool = new Pool(PROCESSES, () => {
    fs.writeFileSync(paths.cpu, `${Math.round(cpuMsNow() + pool.cpuMs)}\n`);
    rearm();
  });
  const server = net.createServer((socket) => {
    let data = '';
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      data += chunk;
      const end = data.indexOf('\n');
      if (end < 0) return;
      let req: ServerRequest;
      try {
        req = JSON.parse(data.slice(0, end)) as ServerRequest;
      } catch {
        socket.end(`${JSON.stringify({ status: 1, stderr: '', serverError: 'bad request' })}\n`);
        return;
      }
      pool.submit({ args: req.args, source: req.source, reply: (r) => socket.end(`${JSON.stringify(r)}\n`) });
      rearm();
    });
  });
  server.on('error', () => stop());
  server.listen(paths.socket, () => {
    fs.chmodSync(paths.socket, 0o600);
    rearm();
  });
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

function mainServer(): void {
  const paths = serverPaths();
  if (!ensurePrivateDir(paths.dir) || !lock(paths)) return;
  serve(paths);
}

mainServer();

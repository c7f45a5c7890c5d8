// The tsopt compile server (tscc's default; cli/tsopt-server.ts, cli/tsopt-client.ts): objects
// built through it are byte for byte those tscc builds without it, for one build, for two
// `make -j2` builds at once, a `make -j8` build with TSCC_SERVER unset, after the server was killed (SIGKILL) in between, with a stale socket
// and pid file left by a dead server, and when something that is not our server answers on the
// socket. Each test has its own server directory (TSCC_SERVER_DIR) and stops its server.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { kernelsDir, runOk, tempDir } from '../support/tools';
import { tsccOnPath } from './support';

const KERNELS = ['atax', 'gemm', 'jacobi-1d', 'mvt'];
const work = tempDir('tscc-server-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface Done {
  status: number | null;
  stderr: string;
}

/** Runs a command without blocking the test's event loop (a fake server may have to answer). */
function runAsync(cmd: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Done> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

function serverEnv(dir: string): NodeJS.ProcessEnv {
  return tsccOnPath({ TSCC_STRICT: '1', TSCC_SERVER: '1', TSCC_SERVER_DIR: dir, TSOPT_SERVER_IDLE_SECONDS: '60', TSOPT_SERVER_PROCESSES: '2' }).env;
}

/** A build directory: the kernels' sources and a Makefile compiling them to objects. */
function project(name: string): string {
  const dir = path.join(work, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const k of KERNELS) fs.copyFileSync(path.join(kernelsDir, `${k}.c`), path.join(dir, `${k}.c`));
  fs.copyFileSync(path.join(kernelsDir, 'kernel.h'), path.join(dir, 'kernel.h'));
  fs.writeFileSync(path.join(dir, 'Makefile'), `all: ${KERNELS.map((k) => `${k}.o`).join(' ')}\n%.o: %.c\n\t$(CC) -O3 -c $< -o $@\n`);
  return dir;
}

function objects(dir: string): Map<string, Buffer> {
  return new Map(KERNELS.map((k) => [k, fs.readFileSync(path.join(dir, `${k}.o`))]));
}

/** The objects tscc builds without a server: what every build below must give. */
let expected: Map<string, Buffer>;
beforeAll(() => {
  const dir = project('direct');
  const { env } = tsccOnPath({ TSCC_STRICT: '1' });
  const r = spawnSync('make', ['-j2', 'CC=tscc'], { cwd: dir, env, encoding: 'utf8' });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  expected = objects(dir);
}, 600_000);

async function waitFor(file: string): Promise<void> {
  for (let i = 0; i < 600 && !fs.existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
  expect(fs.existsSync(file)).toBe(true);
}

function stop(serverDir: string): void {
  const pidFile = path.join(serverDir, 'server.pid');
  if (!fs.existsSync(pidFile)) return;
  try {
    process.kill(Number(fs.readFileSync(pidFile, 'utf8')), 'SIGTERM');
  } catch {
    // already gone
  }
}

async function build(name: string, serverDir: string, jobs = 2, env = serverEnv(serverDir)): Promise<Map<string, Buffer>> {
  const dir = project(name);
  const r = await runAsync('make', [`-j${jobs}`, 'CC=tscc'], dir, env);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  return objects(dir);
}

test('a build through the server, then two builds at once, give the objects of tscc without it', async () => {
  const serverDir = path.join(work, 'srv-1');
  try {
    // The first compile finds no server: it starts one and waits for it (cli/tsopt-client.ts).
    expect(await build('first', serverDir)).toEqual(expected);
    await waitFor(path.join(serverDir, 'server.sock'));
    expect(await build('served', serverDir)).toEqual(expected);
    // The server ran tsopt for some of them (it writes its CPU after each request).
    expect(fs.existsSync(path.join(serverDir, 'server.cpu'))).toBe(true);
    const [a, b] = await Promise.all([build('twice-a', serverDir), build('twice-b', serverDir)]);
    expect(a).toEqual(expected);
    expect(b).toEqual(expected);
  } finally {
    stop(serverDir);
  }
}, 900_000);

test('a killed server and a stale socket: the objects stay right and a new server takes over', async () => {
  const serverDir = path.join(work, 'srv-2');
  try {
    expect(await build('before-kill', serverDir)).toEqual(expected);
    await waitFor(path.join(serverDir, 'server.sock'));
    const first = Number(fs.readFileSync(path.join(serverDir, 'server.pid'), 'utf8'));
    // SIGKILL: no clean-up, so the socket and the pid file stay behind, stale.
    process.kill(first, 'SIGKILL');
    for (let i = 0; i < 100; i++) {
      try {
        process.kill(first, 0);
      } catch {
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(fs.existsSync(path.join(serverDir, 'server.sock'))).toBe(true);
    expect(await build('after-kill', serverDir)).toEqual(expected);
    await waitFor(path.join(serverDir, 'server.sock'));
    for (let i = 0; i < 300 && Number(fs.readFileSync(path.join(serverDir, 'server.pid'), 'utf8')) === first; i++) await new Promise((r) => setTimeout(r, 100));
    expect(Number(fs.readFileSync(path.join(serverDir, 'server.pid'), 'utf8'))).not.toBe(first);
    expect(await build('new-server', serverDir)).toEqual(expected);
  } finally {
    stop(serverDir);
  }
}, 900_000);

test('something else answering on the socket: tscc runs tsopt itself', async () => {
  const serverDir = path.join(work, 'srv-3');
  fs.mkdirSync(serverDir, { mode: 0o700 });
  // A live pid (ours) holds the lock, so no real server replaces the impostor.
  fs.writeFileSync(path.join(serverDir, 'server.pid'), `${process.pid}\n`);
  const impostor = net.createServer((s) => s.end('not a reply\n'));
  await new Promise<void>((r) => impostor.listen(path.join(serverDir, 'server.sock'), r));
  try {
    expect(await build('impostor', serverDir)).toEqual(expected);
  } finally {
    impostor.close();
  }
  // And the program built from such an object runs.
  const exe = path.join(work, 'atax');
  runOk('clang-14', [path.join(work, 'impostor', 'atax.o'), '-o', exe]);
  expect(runOk(exe, []).length).toBeGreaterThan(0);
}, 900_000);

test('by default (TSCC_SERVER unset) tscc uses a server, and make -j8 gives the same objects', async () => {
  const serverDir = path.join(work, 'srv-default');
  const env = serverEnv(serverDir);
  delete env.TSCC_SERVER;
  try {
    expect(await build('default-first', serverDir, 8, env)).toEqual(expected);
    await waitFor(path.join(serverDir, 'server.sock'));
    expect(await build('default-served', serverDir, 8, env)).toEqual(expected);
    // The server ran tsopt for some of them (it writes its CPU after each request).
    expect(fs.existsSync(path.join(serverDir, 'server.cpu'))).toBe(true);
  } finally {
    stop(serverDir);
  }
}, 900_000);

test('TSCC_SERVER=0: no server is started, each tsopt run is a process of its own', async () => {
  const serverDir = path.join(work, 'srv-off');
  expect(await build('off', serverDir, 2, { ...serverEnv(serverDir), TSCC_SERVER: '0' })).toEqual(expected);
  expect(fs.existsSync(path.join(serverDir, 'server.pid'))).toBe(false);
  expect(fs.existsSync(path.join(serverDir, 'server.sock'))).toBe(false);
}, 900_000);

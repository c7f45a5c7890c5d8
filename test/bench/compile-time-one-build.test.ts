// The compile server's request log (TSOPT_SERVER_REQUEST_LOG) and what bench/compile-time.ts's
// one-build mode makes of it (bench/compile-time-one-build.ts): two kernels of test/kernels built
// by one `make -j1` through tscc and one server; each compile's request is recorded under its
// source with the pool process's CPU on it, which holds tsopt's own stages of that compile, and
// the requests together are part of the server's CPU, the rest being its start and idle time.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SourceStages } from '../../cli/tscc-stages';
import type { RequestRecord } from '../../cli/tsopt-server-protocol';
import { chargeServer, polybenchMakefile, requestCpuByFile, SERVER_OVERHEAD } from '../../bench/compile-time-one-build';
import { kernelsDir, tempDir } from '../support/tools';
import { tsccOnPath } from '../tscc/support';

const KERNELS = ['gemm', 'atax'];
const work = tempDir('ct-one-build-');
const serverDir = path.join(work, 'server');
afterAll(() => {
  const pidFile = path.join(serverDir, 'server.pid');
  if (fs.existsSync(pidFile)) {
    try {
      process.kill(Number(fs.readFileSync(pidFile, 'utf8')), 'SIGTERM');
    } catch {
      // already gone
    }
  }
  fs.rmSync(work, { recursive: true, force: true });
});

const requestLog = path.join(work, 'requests.jsonl');
const stageFile = path.join(work, 'stages.jsonl');
let records: RequestRecord[];
let serverCpuS: number;

beforeAll(() => {
  const src = path.join(work, 'src');
  fs.mkdirSync(src);
  fs.writeFileSync(path.join(src, 'Makefile'), `all: ${KERNELS.map((k) => `${k}.o`).join(' ')}\n%.o: ${kernelsDir}/%.c\n\t$(CC) -O3 -c $< -o $@\n`);
  const { env } = tsccOnPath({
    TSCC_STRICT: '1', TSCC_SERVER: '1', TSCC_SERVER_DIR: serverDir, TSOPT_SERVER_IDLE_SECONDS: '60',
    TSOPT_SERVER_REQUEST_LOG: requestLog, TSCC_TIME_STAGES: stageFile,
  });
  const r = spawnSync('make', ['-j1', 'CC=tscc'], { cwd: src, env, encoding: 'utf8' });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  records = fs.readFileSync(requestLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as RequestRecord);
  serverCpuS = Number(fs.readFileSync(path.join(serverDir, 'server.cpu'), 'utf8')) / 1000;
}, 300_000);

test('the server records one request per compiled source, with its CPU', () => {
  expect(records.map((r) => ({ source: path.basename(r.source), status: r.status }))).toEqual(KERNELS.map((k) => ({ source: `${k}.c`, status: 0 })));
  for (const r of records) expect(r.cpuMs).toBeGreaterThan(0);
});

test("a request's CPU holds tsopt's stages of that compile, and the requests are part of the server's CPU", () => {
  const stages = fs.readFileSync(stageFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as SourceStages);
  for (const r of records) {
    const own = stages.find((s) => path.basename(s.source) === path.basename(r.source));
    // tsopt's stages inside the pool process, but for its process start, which came before the
    // first request (0 for later ones); 10 ms a stage for /proc's resolution of the tools' CPU.
    const inside = (own?.stages ?? []).filter((s) => s.stage.startsWith('tsopt: ') && !s.stage.includes('process start'));
    expect(inside.length).toBeGreaterThan(0);
    const versioning = inside.find((s) => s.stage === 'tsopt: versioning');
    expect(versioning).toBeDefined();
    expect(versioning!.cpuMs).toBeLessThanOrEqual(r.cpuMs + 10);
  }
  const requests = records.reduce((s, r) => s + r.cpuMs / 1000, 0);
  // The server's rest: its own start and its pool process's (Node and tsopt loaded) at the least.
  expect(serverCpuS).toBeGreaterThan(requests);
});

test("the one-build mode charges each request to its file and the server's rest to a row of its own", () => {
  const clients = new Map([['gemm.c', 0.25], ['atax.c', 0.5], ['(other)', 0.1]]);
  const charged = chargeServer(clients, requestLog, serverCpuS);
  const byFile = requestCpuByFile(requestLog);
  expect(charged.get('gemm.c')).toBeCloseTo(0.25 + byFile.get('gemm.c')!, 6);
  expect(charged.get('atax.c')).toBeCloseTo(0.5 + byFile.get('atax.c')!, 6);
  expect(charged.get(SERVER_OVERHEAD)).toBeGreaterThan(0);
  // Nothing lost, nothing counted twice: the clients' CPU plus the server's whole.
  expect([...charged.values()].reduce((a, b) => a + b, 0)).toBeCloseTo(0.85 + serverCpuS, 6);
});

test('the one-build Makefile compiles every kernel to its own object with its own include directory', () => {
  const text = polybenchMakefile('/pb', 'LARGE', ['linear-algebra/blas/gemm/gemm.c', 'stencils/adi/adi.c']);
  expect(text.split('\n')[0]).toBe('all: gemm.o adi.o');
  expect(text).toContain('gemm.o: /pb/linear-algebra/blas/gemm/gemm.c\n\t$(CC) -O3 -march=native -I/pb/utilities -I/pb/linear-algebra/blas/gemm -DLARGE_DATASET -DPOLYBENCH_TIME -c $< -o $@\n');
  expect(text).toContain('adi.o: /pb/stencils/adi/adi.c\n');
});

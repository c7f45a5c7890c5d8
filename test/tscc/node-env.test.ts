// NODE_EXTRA_CA_CERTS and tscc (issue 16): with it set, Node loads the system's CA certificates at
// every start, for TLS tscc never speaks. bin/tscc.js's `#!` line drops it for tscc's own start
// (run here as node_modules/.bin runs it, by its `#!`), and tscc drops it for the Node processes
// it starts (a tsopt run, the compile server). A file that does not exist makes Node warn on
// stderr at the start of any process that sees the variable: none may.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stopServer } from '../../cli/tsopt-client';
import { serverPaths } from '../../cli/tsopt-server-protocol';
import { kernelsDir, repoRoot, tempDir } from '../support/tools';

const dir = tempDir('tscc-node-env-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const CERTS = { NODE_EXTRA_CA_CERTS: path.join(dir, 'no-such-certs.pem') };
const tscc = path.join(repoRoot, 'bin', 'tscc.js');
const gemm = path.join(kernelsDir, 'gemm.c');

function run(cmd: string, args: readonly string[], env: NodeJS.ProcessEnv): { status: number | null; stderr: string } {
  const r = spawnSync(cmd, args, { cwd: dir, env: { ...process.env, TSCC_STRICT: '1', ...env }, encoding: 'utf8' });
  if (r.error) throw r.error;
  return { status: r.status, stderr: r.stderr };
}

test('the variable makes a Node start warn (what the tests below look for)', () => {
  expect(run(process.execPath, ['-e', '0'], CERTS).stderr).toMatch(/Ignoring extra certs/);
});

test('neither tscc nor the tsopt process it starts loads the certificates', () => {
  expect(run(tscc, ['-O3', `-I${kernelsDir}`, '-c', gemm, '-o', 'direct.o'], { ...CERTS, TSCC_SERVER: '0' })).toEqual({ status: 0, stderr: '' });
}, 120_000);

test('the compile server tscc starts runs without the variable', () => {
  const env = { ...CERTS, TSCC_SERVER: '1', TSCC_SERVER_DIR: path.join(dir, 'server'), TSOPT_SERVER_IDLE_SECONDS: '60' };
  try {
    expect(run(tscc, ['-O3', `-I${kernelsDir}`, '-c', gemm, '-o', 'served.o'], env)).toEqual({ status: 0, stderr: '' });
    const pid = fs.readFileSync(serverPaths(env).pid, 'utf8').trim();
    const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    expect(environ).toContain(`TSCC_SERVER_DIR=${env.TSCC_SERVER_DIR}`);
    expect(environ.filter((v) => v.startsWith('NODE_EXTRA_CA_CERTS='))).toEqual([]);
    expect(fs.readFileSync(path.join(dir, 'served.o')).equals(fs.readFileSync(path.join(dir, 'direct.o')))).toBe(true);
  } finally {
    stopServer(env);
  }
}, 120_000);

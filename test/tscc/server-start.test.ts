// The compile that finds no server (cli/tsopt-client.ts) starts one and waits for it to listen,
// instead of loading tsopt in a process of its own as well (issue 16): its stages
// (TSCC_TIME_STAGES) show tsopt's run on the server and no tsopt process, and its object is the
// one tscc builds without a server.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stopServer } from '../../cli/tsopt-client';
import { kernelsDir, tempDir } from '../support/tools';
import { tsccOnPath } from './support';

const work = tempDir('tscc-server-start-');
const serverDir = path.join(work, 'server');
const serverEnv = { TSCC_SERVER: '1', TSCC_SERVER_DIR: serverDir, TSOPT_SERVER_IDLE_SECONDS: '60' };
afterAll(() => {
  stopServer({ ...process.env, ...serverEnv });
  fs.rmSync(work, { recursive: true, force: true });
});

/** tscc -O3 -c gemm.c: the object and the stages of the compile. */
function compile(name: string, env: NodeJS.ProcessEnv): { object: Buffer; stages: string[] } {
  const stagesFile = path.join(work, `${name}.jsonl`);
  const object = path.join(work, `${name}.o`);
  const { env: full } = tsccOnPath({ TSCC_STRICT: '1', TSCC_TIME_STAGES: stagesFile, ...env });
  const r = spawnSync('tscc', ['-O3', '-I', kernelsDir, '-c', path.join(kernelsDir, 'gemm.c'), '-o', object], { cwd: work, env: full, encoding: 'utf8' });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  const stages = fs.readFileSync(stagesFile, 'utf8').trim().split('\n').flatMap((l) => (JSON.parse(l) as { stages: { stage: string }[] }).stages.map((s) => s.stage));
  return { object: fs.readFileSync(object), stages };
}

test('the first compile of a build is served by the server it starts: no tsopt process of its own', () => {
  const direct = compile('direct', { TSCC_SERVER: '0' });
  expect(direct.stages).toContain('tsopt');
  expect(fs.existsSync(serverDir)).toBe(false);
  const first = compile('first', serverEnv);
  expect(first.stages).toContain('tsopt on the server (client side)');
  expect(first.stages).toContain('tsopt: versioning');
  expect(first.stages).not.toContain('tsopt');
  expect(fs.existsSync(path.join(serverDir, 'server.cpu'))).toBe(true); // the server ran it
  expect(first.object.equals(direct.object)).toBe(true);
}, 300_000);

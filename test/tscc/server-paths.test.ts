// Where tscc looks for the compile server (cli/tsopt-server-protocol.ts): one directory per user
// and per build of tsopt, so that a server still running the code of another checkout, or of this
// one before a rebuild, is never asked. TSCC_SERVER_DIR overrides it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildIdentity, serverPaths } from '../../cli/tsopt-server-protocol';
import { tempDir } from '../support/tools';

const work = tempDir('tscc-server-paths-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** A stand-in for dist/cli: the three entry points the identity reads, written at `mtime`. */
function distCli(name: string, mtime: Date): string {
  const dir = path.join(work, name);
  fs.mkdirSync(dir, { recursive: true });
  for (const f of ['tsopt.js', 'tsopt-server.js', 'tsopt-server-worker.js']) {
    fs.writeFileSync(path.join(dir, f), '// built\n');
    fs.utimesSync(path.join(dir, f), mtime, mtime);
  }
  return dir;
}

test('a rebuild or another checkout gets a server directory of its own', () => {
  const then = new Date('2026-01-01T00:00:00Z');
  const a = distCli('a', then);
  const b = distCli('b', then);
  const before = buildIdentity(a);
  expect(buildIdentity(a)).toBe(before);
  expect(buildIdentity(b)).not.toBe(before);
  // npm run build rewrites the entry points
  fs.utimesSync(path.join(a, 'tsopt-server-worker.js'), new Date('2026-01-02T00:00:00Z'), new Date('2026-01-02T00:00:00Z'));
  const after = buildIdentity(a);
  expect(after).not.toBe(before);

  const env = {};
  const dirBefore = serverPaths(env, before).dir;
  const dirAfter = serverPaths(env, after).dir;
  expect(dirBefore).not.toBe(dirAfter);
  expect(path.basename(dirBefore)).toBe(`tsopt-server-${os.userInfo().uid}-${before}`);
  expect(serverPaths(env, before).socket).toBe(path.join(dirBefore, 'server.sock'));
});

test('TSCC_SERVER_DIR names the directory whatever the build', () => {
  const dir = path.join(work, 'chosen');
  expect(serverPaths({ TSCC_SERVER_DIR: dir }, 'x').dir).toBe(dir);
  expect(serverPaths({ TSCC_SERVER_DIR: dir }, 'y').pid).toBe(path.join(dir, 'server.pid'));
});

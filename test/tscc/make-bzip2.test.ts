// `make CC=tscc` on a real multi-file C project from Debian's sources (bzip2: seven library
// sources, two programs), then the project's own test (`make test`: compress/decompress round trips
// of its sample files, compared with cmp). Every file must go through tsopt (no fallback line).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { debianSource } from '../support/debian-sources';
import { tempDir } from '../support/tools';
import { tsccOnPath } from './support';

test('make CC=tscc builds bzip2 and its own test passes', () => {
  const src = debianSource('bzip2');
  const work = path.join(tempDir('tscc-bzip2-'), 'bzip2');
  fs.cpSync(src, work, { recursive: true });
  const { env } = tsccOnPath({ TSCC_STRICT: '1' });
  const make = (target: string[]) => spawnSync('make', ['CC=tscc', ...target], { cwd: work, env, encoding: 'utf8' });
  spawnSync('make', ['clean'], { cwd: work, env });
  const build = make(['libbz2.a', 'bzip2', 'bzip2recover']);
  expect(build.stderr).not.toMatch(/tsopt failed/);
  expect(build.status).toBe(0);
  expect(build.stdout).toMatch(/tscc .*-O2.*-c blocksort\.c/);
  const check = make(['test']);
  expect(check.status).toBe(0);
  expect(check.stdout).toMatch(/If you got this far and the 'cmp's didn't complain, it looks\s+like you're in business/);
  fs.rmSync(path.dirname(work), { recursive: true, force: true });
}, 300_000);

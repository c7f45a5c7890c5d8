// Real-world C for round-trip and robustness tests: Debian source packages, fetched on first
// use with `apt-get source` into a cache outside the repo, never committed.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const cacheRoot = process.env.TSOPT_CACHE ?? path.join(os.homedir(), '.cache', 'tsopt');

/**
 * The unpacked source tree of a Debian source package (e.g. `zlib`, `bzip2`, `lua5.4`),
 * fetched once. Needs a `deb-src` entry (bin/setup adds it) and network access to Debian.
 */
export function debianSource(pkg: string): string {
  const dir = path.join(cacheRoot, 'debian-src', pkg);
  const done = path.join(dir, '.done');
  if (!fs.existsSync(done)) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const r = spawnSync('apt-get', ['source', '-qq', pkg], { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`apt-get source ${pkg} failed: ${r.stderr}`);
    fs.writeFileSync(done, '');
  }
  const tree = fs
    .readdirSync(dir, { withFileTypes: true })
    .find((e) => e.isDirectory());
  if (!tree) throw new Error(`apt-get source ${pkg} left no source tree in ${dir}`);
  return path.join(dir, tree.name);
}

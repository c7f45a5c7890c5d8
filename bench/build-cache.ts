// Executables kept between bench runs (`--builds DIR`): build and check on a busy machine, then
// time on a quiet one without compiling again. An executable is reused only when its stamp, the
// build's whole command and everything it depends on that can change between runs, is the same.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * A digest of the files under `dirs` (paths, sizes, modification times): tsopt's own build.
 * `skip(file)`: files no build depends on (the tests' and the bench's own compiled code).
 */
export function treeDigest(dirs: readonly string[], skip: (file: string) => boolean = () => false): string {
  const h = crypto.createHash('sha256');
  const walk = (d: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      h.update(`missing ${d}\n`);
      return;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && !skip(p)) {
        const st = fs.statSync(p);
        h.update(`${p} ${st.size} ${st.mtimeMs}\n`);
      }
    }
  };
  for (const d of dirs) walk(d);
  return h.digest('hex');
}

/** What a build's result depends on: its command words, the sources' contents and the toolchain's digest. */
export function buildStamp(command: readonly string[], sources: readonly string[], toolchain: string, env?: NodeJS.ProcessEnv): string {
  const h = crypto.createHash('sha256');
  h.update(JSON.stringify(command));
  h.update(JSON.stringify(env ?? {}));
  for (const s of sources) {
    h.update(`\n${s}\n`);
    try {
      h.update(fs.readFileSync(s));
    } catch {
      h.update('(unreadable)');
    }
  }
  h.update(`\n${toolchain}`);
  return h.digest('hex');
}

const stampFile = (exe: string) => `${exe}.stamp`;

/** Whether `exe` was built by a command with this stamp and is still there. */
export function isFresh(exe: string, stamp: string): boolean {
  try {
    return fs.existsSync(exe) && fs.readFileSync(stampFile(exe), 'utf8') === stamp;
  } catch {
    return false;
  }
}

/** Records that `exe` is the result of the build with this stamp. */
export function recordBuild(exe: string, stamp: string): void {
  fs.writeFileSync(stampFile(exe), stamp);
}

/** Forgets `exe`'s stamp (before a build that may fail, so a stale executable is never reused). */
export function forgetBuild(exe: string): void {
  fs.rmSync(stampFile(exe), { force: true });
}

/**
 * The files of tsopt's `dist` (under `dist`) no variant's build runs: the compiled tests and the
 * bench's own code, but for `pipe-cc.js`, the pipe variant's compiler. A change to the harness or
 * a test then keeps the builds.
 */
export function notInBuilds(dist: string): (file: string) => boolean {
  return (file) => {
    const rel = path.relative(dist, file).split(path.sep);
    if (rel[0] === 'test') return true;
    return rel[0] === 'bench' && !(rel.length === 2 && rel[1]!.startsWith('pipe-cc.js'));
  };
}

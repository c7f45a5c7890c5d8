// Output files appear whole or not at all: a temporary file in the same directory, then rename.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TsoptError } from '../ir/errors';

/** A file written to its temporary name, not yet in place: commit() renames it, abort() removes it. */
export interface PreparedFile {
  commit(): void;
  abort(): void;
}

/**
 * Writes `bytes` under a temporary name beside `file`, so that a regular file either appears whole
 * or not at all; several outputs (the module and its report) are all prepared before any is
 * committed, so a failure to write one leaves none of them behind. An existing target that is not
 * a regular file (/dev/null, a FIFO, a terminal) is written in place at commit: renaming over it
 * would replace the device with a file.
 */
export function prepareFile(file: string, bytes: Buffer | string): PreparedFile {
  const fail = (e: unknown) => {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
    return new TsoptError(`cannot write ${file}: ${why}`);
  };
  const existing = fs.statSync(file, { throwIfNoEntry: false });
  if (existing && !existing.isFile()) {
    return {
      commit: () => {
        try {
          fs.writeFileSync(file, bytes);
        } catch (e) {
          throw fail(e);
        }
      },
      abort: () => undefined,
    };
  }
  const dir = path.dirname(path.resolve(file));
  const temp = path.join(dir, `.${path.basename(file)}.tsopt-${process.pid}-${Math.random().toString(36).slice(2)}.tmp`);
  const abort = () => fs.rmSync(temp, { force: true });
  try {
    fs.writeFileSync(temp, bytes, { flag: 'wx', mode: existing ? existing.mode & 0o777 : 0o666 });
  } catch (e) {
    abort();
    throw fail(e);
  }
  return {
    commit: () => {
      try {
        fs.renameSync(temp, file);
      } catch (e) {
        abort();
        throw fail(e);
      }
    },
    abort,
  };
}

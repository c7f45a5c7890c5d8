// Output files appear whole or not at all: a temporary file in the same directory, then rename.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TsoptError } from '../ir/errors';

/**
 * Writes `bytes` to `file` so that a regular file either appears whole or not at all. An existing
 * target that is not a regular file (/dev/null, a FIFO, a terminal) is written in place: renaming
 * over it would replace the device with a file.
 */
export function writeFileAtomically(file: string, bytes: Buffer | string): void {
  const existing = fs.statSync(file, { throwIfNoEntry: false });
  if (existing && !existing.isFile()) {
    try {
      fs.writeFileSync(file, bytes);
      return;
    } catch (e) {
      throw new TsoptError(`cannot write ${file}: ${(e as Error).message}`);
    }
  }
  const dir = path.dirname(path.resolve(file));
  const temp = path.join(dir, `.${path.basename(file)}.tsopt-${process.pid}-${Math.random().toString(36).slice(2)}.tmp`);
  try {
    fs.writeFileSync(temp, bytes, { flag: 'wx', mode: existing ? existing.mode & 0o777 : 0o666 });
    fs.renameSync(temp, file);
  } catch (e) {
    fs.rmSync(temp, { force: true });
    throw new TsoptError(`cannot write ${file}: ${(e as Error).message}`);
  }
}

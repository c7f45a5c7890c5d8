// Output files appear whole or not at all: a temporary file in the same directory, then rename.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TsoptError } from './errors';

/** Writes `bytes` to `file` so that it either appears whole or not at all. */
export function writeFileAtomically(file: string, bytes: Buffer | string): void {
  const dir = path.dirname(path.resolve(file));
  const temp = path.join(dir, `.${path.basename(file)}.tsopt-${process.pid}-${Math.random().toString(36).slice(2)}.tmp`);
  try {
    fs.writeFileSync(temp, bytes, { flag: 'wx' });
    fs.renameSync(temp, file);
  } catch (e) {
    fs.rmSync(temp, { force: true });
    throw new TsoptError(`cannot write ${file}: ${(e as Error).message}`);
  }
}

// Helpers shared by the delinearization tests.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kernelsDir } from '../support/tools';

/** The arrays of a kernel's signature with their true inner sizes: `ARRAY2(double, A, ni, nj)` → A: ['*', 'nj']. */
export function declaredShapes(file: string, kernel: string): Map<string, string[]> {
  const source = fs.readFileSync(path.join(kernelsDir, file), 'utf8');
  const start = source.indexOf(`${kernel}(`);
  const signature = source.slice(start, source.indexOf('{', start));
  const out = new Map<string, string[]>();
  for (const m of signature.matchAll(/ARRAY([23])\(\s*\w+\s*,\s*(\w+)\s*,([^)]*)\)/g)) {
    const sizes = m[3]!.split(',').map((s) => s.trim());
    out.set(m[2]!, ['*', ...sizes.slice(1)]);
  }
  return out;
}


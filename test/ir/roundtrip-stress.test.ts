// Round trip of random modules from llvm-stress-14 (several seeds and sizes).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { checkRoundTrips } from './roundtrip-support';

const seeds = [1, 2, 3, 5, 8, 13, 21, 34];
const sizes = [20, 200, 1500];

describe('IR round trip on llvm-stress-14 modules', () => {
  it('round-trips every seed and size', () => {
    const dir = tempDir('tsopt-ir-stress-');
    const names: string[] = [];
    const cmds: string[] = [];
    for (const seed of seeds) {
      for (const size of sizes) {
        const name = `stress_s${seed}_n${size}`;
        names.push(name);
        cmds.push(`llvm-stress-14 -seed=${seed} -size=${size} -o '${path.join(dir, name)}.ll'`);
      }
    }
    runOk('sh', ['-c', `set -e; ${cmds.join('; ')}`]);
    const cases = names.map((name) => ({ name, text: fs.readFileSync(path.join(dir, `${name}.ll`), 'utf8') }));
    fs.rmSync(dir, { recursive: true, force: true });
    expect(cases.reduce((n, c) => n + c.text.length, 0)).toBeGreaterThan(500_000);
    expect(checkRoundTrips(cases)).toEqual([]);
  });
});

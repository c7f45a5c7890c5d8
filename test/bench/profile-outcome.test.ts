// The bench's one-line account of what a profile offered a tscc-prof build (bench/profile-variant.ts):
// nothing profiled, a region whose hot tuples cover most entries, one whose values all differ, and
// an executable identical to tscc's.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { profileOutcome } from '../../bench/profile-variant';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsopt-profile-outcome-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function line(fn: string, entries: number, other: number, top: [number, string[]][]): string {
  return JSON.stringify({ tsoptProfile: 1, function: fn, fingerprint: 'f00d', region: 0, kind: 'scop', location: `${fn}:%1`, parameters: ['%n'], entries, other, top }) + '\n';
}

test('without a profile: nothing profiled; with one, per region its top tuples\' share and whether that is a version', () => {
  const exe = path.join(dir, 'prog');
  fs.writeFileSync(exe, 'one');
  expect(profileOutcome(exe)).toMatch(/^nothing profiled: no region entered has a run-time parameter/);
  // A kernel entered with n = 64 but for 2% (too few for a version of their own), and an outer loop counter that differs at every entry.
  fs.writeFileSync(`${exe}.tsopt-profile.json`, line('hot', 100, 0, [[98, ['64']], [2, ['3']]]) + line('lu', 100, 92, Array.from({ length: 8 }, (_, i) => [1, [String(i)]])));
  expect(profileOutcome(exe)).toBe('hot#0: 1 hot tuple(s) cover 98% of 100 entries: a version each; lu#0: no version, its top 2 tuples cover 2% of 100 entries (92 in no slot)');
  const plain = path.join(dir, 'plain');
  fs.writeFileSync(plain, 'one');
  expect(profileOutcome(exe, plain)).toMatch(/; the executable is byte-identical to tscc's$/);
  fs.writeFileSync(plain, 'two');
  expect(profileOutcome(exe, plain)).not.toMatch(/identical/);
});

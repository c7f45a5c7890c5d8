// Robustness: mutated bitcode (bit flips, truncations, inserted bytes) never crashes tsopt.
// Each mutant either fails with exit 1, one line `tsopt: error: <input>: <reason>` and no output
// file, or - when LLVM still reads it - comes out as bitcode (and, for the first 20 such mutants
// of each batch process, as a module whose text equals LLVM's own reading of the mutant).
// 1,000 mutants go through the command's `execute` in ten tests of 100, each in two batch
// processes (fuzz-driver.ts; a node process per mutant would take minutes), so that each test
// stays far inside its time limit on a loaded machine; 16 more go through the real binary.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { POST_PIPELINE } from '../../cli/post-pipeline';
import { compileToIr, kernelsDir, repoRoot, tempDir } from '../support/tools';
import { inParallel, ONE_LINE_ERROR, tsoptAsync } from '../cli/tsopt-binary';
import type { FuzzResult } from './fuzz-driver';
import { mutate } from './mutate';

const dir = tempDir('tsopt-fuzz-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const originals = [
  compileToIr(path.join(kernelsDir, 'example.c'), ['-O3']),
  compileToIr(path.join(kernelsDir, 'example.c'), ['-O3', '-g']),
];
const originalFiles = originals.map((bytes, i) => {
  const file = path.join(dir, `original-${i}.bc`);
  fs.writeFileSync(file, bytes);
  return file;
});

function driver(firstSeed: number, count: number, compareFirst: number): Promise<FuzzResult> {
  const script = path.join(repoRoot, 'dist', 'test', 'gateway', 'fuzz-driver.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, String(firstSeed), String(count), String(compareFirst), dir, ...originalFiles]);
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', reject);
    child.on('close', (status, signal) => {
      if (status !== 0) reject(new Error(`fuzz driver exited with ${status ?? signal}: ${err}`));
      else resolve(JSON.parse(out) as FuzzResult);
    });
  });
}

const BATCHES = 10;
const PER_BATCH = 100;
const batches: FuzzResult[] = [];

describe('1,000 mutated bitcode files: exit 1 with one line and no output, or valid output', () => {
  test.each(Array.from({ length: BATCHES }, (_, k) => k * PER_BATCH))('100 mutants from seed %i', async (first) => {
    const half = PER_BATCH / 2;
    const results = await Promise.all([driver(first, half, 2), driver(first + half, half, 2)]);
    batches.push(...results);
    expect(results.flatMap((b) => b.problems)).toEqual([]);
    expect(results.reduce((n, b) => n + b.rejected + b.accepted, 0)).toBe(PER_BATCH);
  }, 300_000);

  test('both outcomes occurred over the 1,000, or the batches prove little', () => {
    const total = (key: 'rejected' | 'accepted' | 'compared') => batches.reduce((n, b) => n + b[key], 0);
    expect(total('rejected') + total('accepted')).toBe(BATCHES * PER_BATCH);
    expect(total('rejected')).toBeGreaterThan(500);
    expect(total('compared')).toBeGreaterThanOrEqual(20);
  });
});

test('16 mutants through the real binary, post pipeline on: exit 0 or 1, never a signal', async () => {
  const mutants = Array.from({ length: 16 }, (_, i) => mutate(originals[i % 2], 100_000 + i));
  const outcomes = await inParallel(mutants, 2, async (mutant) => {
    const output = path.join(dir, `bin-${mutant.seed}.bc`);
    const r = await tsoptAsync(['-', '-o', output, `--post-pipeline=${POST_PIPELINE}`], mutant.bytes);
    return { id: `seed ${mutant.seed} (${mutant.mutation})`, r, outputExists: fs.existsSync(output) };
  });
  for (const { id, r, outputExists } of outcomes) {
    expect({ id, signal: r.signal, exit0or1: r.status === 0 || r.status === 1 }).toEqual({ id, signal: null, exit0or1: true });
    if (r.status === 1) {
      expect({ id, stderr: r.stderr }).toEqual({ id, stderr: expect.stringMatching(ONE_LINE_ERROR) });
      expect({ id, outputExists }).toEqual({ id, outputExists: false });
    }
  }
}, 300_000);

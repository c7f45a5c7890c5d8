// UTDSP-style edge detection (fixtures/utdsp-edge-detect.c) built by tscc: -O3 unswitches the
// convolution on K > 0, and with runtime unrolling off both copies are one SCoP whose K <= 0
// copy writes across rows. The output image keeps its shape [*][n] under the condition that
// copy does not run, so the fast path runs for each of the three convolutions and the program
// prints what clang -O3's build prints.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot, runOk, tempDir } from '../support/tools';

const work = tempDir('tsopt-tscc-edge-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

test('tscc: the convolution gets its fast path, the output image its shape', () => {
  const source = path.join(__dirname, 'fixtures', 'utdsp-edge-detect.c');
  const exe = path.join(work, 'edge');
  const report = path.join(work, 'report.json');
  const env = { ...process.env, TSCC_STRICT: '1', TSOPT_FLAGS: `--report=${report} --rtc-stats --verify-each` };
  const r0 = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'tscc.js'), '-O3', source, '-o', exe], { env });
  expect(r0.status).toBe(0);
  const stats = path.join(work, 'edge.rtc');
  const r = spawnSync(exe, [], { env: { ...process.env, TSOPT_RTC_STATS: stats } });
  expect(r.status).toBe(0);
  const ref = path.join(work, 'edge.ref');
  runOk('clang-14', ['-O3', source, '-o', ref]);
  expect(r.stdout.toString()).toBe(runOk(ref, []).toString());
  // The convolution's nest (the SCoP with the output image's write) ran its fast path every call.
  const lines = fs.readFileSync(stats, 'utf8').trim().split('\n').filter((l) => l.startsWith('tsopt-rtc: convolve2d ') && l.includes('delinearization-failed'));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/ fast=3 slow=0 /);
  const scops = (JSON.parse(fs.readFileSync(report, 'utf8')) as { functions: { name: string; scops: { arrays: { name: string; shape: string[] }[]; versioned?: boolean }[] }[] })
    .functions.find((f) => f.name === 'convolve2d')!.scops;
  const nest = scops.find((s) => s.arrays.length === 3)!;
  expect(nest.versioned).toBe(true);
  for (const a of nest.arrays) expect(a.shape).toHaveLength(2);
}, 120_000);

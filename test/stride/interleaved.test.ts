// Stride-aware alias checks (issue 18): kernels whose arrays interleave in one buffer
// (fixtures/interleaved.c: re/im pairs, odd/even, a stride-3 struct of arrays, a 2-D red-black
// sweep) through the pipe
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize -emit-llvm | tsopt --passes=versioning --verify-each --rtc-stats
//     | llc-14 -O3 -relocation-model=pic | clang-14 (link)
// Called interleaved, the ranges overlap but the stride test holds and the fast path runs;
// called one stride further (the same elements), both tests fail and the original code runs.
// The program prints what clang -O3's build prints.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compileToIr, repoRoot, runOk, tempDir } from '../support/tools';

const tsopt = path.join(repoRoot, 'bin', 'tsopt.js');
const source = path.join(__dirname, 'fixtures', 'interleaved.c');
const work = tempDir('tsopt-stride-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface Part { label: string; c: string; tests?: string[]; lmads?: string[] }
type Report = { functions: { name: string; scops: { versioned?: boolean; runtimeCheckParts?: Part[] }[] }[] };

const bitcode = () => compileToIr(source, ['-O3', '-fno-vectorize', '-fno-slp-vectorize']);

describe('interleaved arrays in one buffer', () => {
  let report: Report;
  let stats: string[];
  let out: string;
  beforeAll(() => {
    const reportFile = path.join(work, 'report.json');
    const optimized = runOk('node', [tsopt, '--passes=versioning', '--verify-each', '--keep-unprofitable', '--rtc-stats', `--report=${reportFile}`], bitcode());
    report = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as Report;
    const obj = path.join(work, 'k.o');
    runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], optimized);
    const exe = path.join(work, 'k');
    runOk('clang-14', [obj, '-o', exe]);
    const statsFile = path.join(work, 'k.rtc');
    const r = spawnSync(exe, [], { env: { ...process.env, TSOPT_RTC_STATS: statsFile } });
    expect(r.status).toBe(0);
    out = r.stdout.toString();
    stats = fs.readFileSync(statsFile, 'utf8').trim().split('\n');
  }, 120_000);

  const partsOf = (fn: string): Part[] => report.functions.find((f) => f.name === fn)!.scops.flatMap((s) => s.runtimeCheckParts ?? []).filter((p) => p.label.startsWith('alias('));
  const statsOf = (fn: string): string => stats.find((l) => l.startsWith(`tsopt-rtc: ${fn} `)) ?? '';

  test('prints what clang -O3 prints', () => {
    const ref = path.join(work, 'ref');
    runOk('clang-14', ['-O3', source, '-o', ref]);
    expect(out).toBe(runOk(ref, []).toString());
  });

  test.each([
    // interleaved: the stride test passes; one stride further: the elements meet, the slow path runs
    ['kernel_rotate', /fast=1 slow=1 alias\(%1,%2\)-failed=1 alias\(%1,%2\)-range-passed=0 alias\(%1,%2\)-stride-passed=1$/],
    ['kernel_odd_even', /fast=1 slow=1 alias\(%2,%1\)-failed=1 alias\(%2,%1\)-range-passed=0 alias\(%2,%1\)-stride-passed=1$/],
    // y one point further meets x; z beside x stays disjoint in both calls
    ['kernel_xyz', /fast=1 slow=1 alias\(%2,%1\)-failed=1 alias\(%3,%1\)-failed=0 alias\(%2,%1\)-range-passed=0 alias\(%2,%1\)-stride-passed=1 alias\(%3,%1\)-range-passed=0 alias\(%3,%1\)-stride-passed=2$/],
    // rows of an odd length fail the divisibility part
    ['kernel_red_black', /fast=1 slow=2 alias\(%3,%2\)-failed=2 alias\(%3,%2\)-range-passed=0 alias\(%3,%2\)-stride-passed=1$/],
  ])('%s: the stride test decides', (fn, line) => {
    expect(statsOf(fn)).toMatch(line);
    const parts = partsOf(fn);
    expect(parts.length).toBeGreaterThan(0);
    for (const p of parts) {
      expect(p.tests).toEqual(['range', 'stride']);
      expect(p.lmads).toHaveLength(2);
      expect(p.c).toMatch(/% (16|24) \+ (16|24)\) % (16|24) >= 8/);
    }
  });

  test('unit strides leave the range test alone', () => {
    expect(partsOf('kernel_copy').map((p) => p.tests)).toEqual([['range']]);
    expect(statsOf('kernel_copy')).toMatch(/fast=1 slow=1 alias\(%2,%1\)-failed=1$/);
  });

  test('the 2-D sweep tests that its rows hold a whole number of strides', () => {
    const [p] = partsOf('kernel_red_black');
    expect(p!.c).toMatch(/\(p_1\) % 2 == 0\)$/);
    expect(p!.c.match(/% 2 == 0/g)).toHaveLength(1);
  });
});

test('print<scops> gives each array its LMAD: strides per subscript in elements and bytes, and spans', () => {
  const r = spawnSync('node', [tsopt, '--passes=print<scops>', '-o', '/dev/null'], { input: bitcode() });
  expect(r.status).toBe(0);
  const text = r.stderr.toString();
  expect(text).toContain('LMAD := %1: 8 bytes x [stride 2 (16 bytes) span { [(-2 + 2p_0)] }]');
  expect(text).toContain('LMAD := %1: 8 bytes x [stride 3 (24 bytes) span');
  expect(text).toMatch(/LMAD := %3: 8 bytes x \[stride 1 \(8 bytes \* p_1\) span \{ \[\(-1 \+ p_0\)\] \}; stride 2 \(16 bytes\) span/);
}, 60_000);

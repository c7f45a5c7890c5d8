// Two SCoPs of one function where the second one's model names a value of the first one's
// region (a base pointer or a start value loaded between them). Versioning the first makes
// that definition stop dominating the second: its model is rebuilt on the IR as it is then
// (passes/codegen/dominance.ts), and the module verifies after every pass.
//   tsopt --passes=versioning --verify-each two-scops-loaded-start.ll
//   clang-14 -O3 (tscc's front-end flags) slide-hash.c | tsopt --verify-each --rtc-stats
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { debianSource } from '../support/debian-sources';
import { compileToIr, repoRoot, run, runOk, tempDir } from '../support/tools';

const work = tempDir('tsopt-stale-models-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const fixtures = path.join(__dirname, 'fixtures');
const tsopt = path.join(repoRoot, 'bin', 'tsopt.js');
// What tscc gives clang: -O3 without the vectorizers, unrolling deferred to after tsopt.
const FRONT = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false'];

interface Scop { location: string; versioned?: boolean; notVersioned?: string }
function scopsOf(reportFile: string, fn: string): Scop[] {
  const report = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as { functions: { name: string; scops: Scop[] }[] };
  return report.functions.find((f) => f.name === fn)!.scops;
}

function link(optimized: Buffer, name: string): string {
  const obj = path.join(work, `${name}.o`);
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], optimized);
  const exe = path.join(work, name);
  runOk('clang-14', [obj, '-o', exe]);
  return exe;
}

test('the second SCoP starting from a value loaded in the first one\'s region: both versioned, the module verifies, main returns what clang -O3\'s build returns', () => {
  const input = path.join(fixtures, 'two-scops-loaded-start.ll');
  const reportFile = path.join(work, 'two.json');
  const optimized = runOk('node', [tsopt, input, '--passes=versioning', '--verify-each', '--keep-unprofitable', `--report=${reportFile}`]);
  expect(scopsOf(reportFile, 'main').map((s) => [s.location, s.versioned])).toEqual([['main:%L1', true], ['main:%L2', true]]);
  const reference = path.join(work, 'two-ref');
  runOk('clang-14', ['-O3', input, '-o', reference]);
  const want = spawnSync(reference).status;
  expect(want).toBe(18);
  expect(spawnSync(link(optimized, 'two')).status).toBe(want);
}, 120_000);

test('zlib\'s slide_hash: both loops versioned, output as clang -O3\'s, every call takes both fast paths', () => {
  const source = path.join(fixtures, 'slide-hash.c');
  const reportFile = path.join(work, 'slide.json');
  const optimized = runOk('node', [tsopt, '--verify-each', '--keep-unprofitable', '--rtc-stats', `--report=${reportFile}`], compileToIr(source, FRONT));
  const scops = scopsOf(reportFile, 'slide_hash');
  expect(scops).toHaveLength(2);
  expect(scops.filter((s) => s.versioned !== true)).toEqual([]);
  const exe = link(optimized, 'slide');
  const reference = path.join(work, 'slide-ref');
  runOk('clang-14', ['-O3', source, '-o', reference]);
  const stats = path.join(work, 'slide.rtc');
  const r = spawnSync(exe, { env: { ...process.env, TSOPT_RTC_STATS: stats } });
  expect(r.status).toBe(0);
  expect(r.stdout.toString()).toBe(runOk(reference, []).toString());
  // Three calls, one with the tables overlapping: each loop touches one table, so no check fails;
  // one counter line per SCoP (the first attempt at the second SCoP, on its stale model, left none).
  const lines = fs.readFileSync(stats, 'utf8').trim().split('\n').filter((l) => l.startsWith('tsopt-rtc: slide_hash '));
  expect(lines.map((l) => / fast=(\d+) slow=(\d+)/.exec(l)!.slice(1).join('/'))).toEqual(['3/0', '3/0']);
}, 120_000);

test('zlib\'s deflate.c as tscc compiles it: every pass leaves a module that verifies', () => {
  const zlib = debianSource('zlib');
  const bitcode = compileToIr(path.join(zlib, 'deflate.c'), [...FRONT, '-D_LARGEFILE64_SOURCE=1', '-DHAVE_HIDDEN', `-I${zlib}`]);
  const r = run('node', [tsopt, '--verify-each', '-o', path.join(work, 'deflate.bc')], bitcode);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
}, 300_000);

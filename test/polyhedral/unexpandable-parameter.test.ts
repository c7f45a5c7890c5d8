// Issue 16: a SCoP whose parameter the run-time check cannot compute at its entry is rejected
// before isl reads its model. zlib's adler32_z sums its 16-byte blocks in a SCoP inside
// `while (len >= NMAX)`, whose parameters are the bytes' offsets {k,+,5552}<%50>; that loop's
// header PHIs give no iteration number (analysis/outer-iteration.ts), so versioning refused the
// SCoP only after its model, its check and its AST (0.26M isl operations, about a tenth of a
// second of a zlib build's CPU, twice: static and shared objects).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseModule } from '../../ir';
import { AnalysisManager } from '../../analysis/analysis-manager';
import { buildFunctionModels } from '../../polyhedral/analysis';
import { defaultMaxOperations, UNEXPANDABLE_PARAMETER } from '../../polyhedral/build';
import { debianSource } from '../support/debian-sources';
import { compileToIr, disassemble, repoRoot, runOk, tempDir } from '../support/tools';

// tscc's front end on zlib's own flags.
const FRONT = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false'];
const work = tempDir('tsopt-unexpandable-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const zlib = debianSource('zlib');
const ir = (): string => disassemble(compileToIr(path.join(zlib, 'adler32.c'), [...FRONT, '-D_LARGEFILE64_SOURCE=1', '-DHAVE_HIDDEN', `-I${zlib}`]));

test('zlib adler32_z: the block SCoP with outer-loop offsets as parameters is rejected before its model, the others modelled', () => {
  const fn = parseModule(ir()).functions.find((f) => f.name === 'adler32_z')!;
  const f = buildFunctionModels(fn, new AnalysisManager(), { maxOperations: defaultMaxOperations });
  try {
    const refused = f.rejections.filter((r) => r.detail === UNEXPANDABLE_PARAMETER);
    expect(refused.map((r) => r.location)).toEqual(['adler32_z:%56']);
    // The single-byte and tail loops' SCoPs: parameters the check computes.
    expect(f.models.map((m) => m.location).sort()).toEqual(['adler32_z:%251', 'adler32_z:%27']);
  } finally {
    f.dispose();
  }
}, 300_000);

test('zlib adler32 through tsopt: the same checksums as clang -O3\'s build, the refused SCoP in the report', () => {
  const src = path.join(work, 'adler32.ll');
  fs.writeFileSync(src, ir());
  const report = path.join(work, 'adler32.json');
  const out = path.join(work, 'adler32.bc');
  runOk('node', [path.join(repoRoot, 'bin', 'tsopt.js'), src, '-o', out, '--verify-each', `--report=${report}`]);
  const r = JSON.parse(fs.readFileSync(report, 'utf8')) as { functions: { name: string; rejected: { location: string; detail: string }[] }[] };
  const rejected = r.functions.find((x) => x.name === 'adler32_z')!.rejected;
  expect(rejected.filter((x) => x.detail === UNEXPANDABLE_PARAMETER).map((x) => x.location)).toEqual(['adler32_z:%56']);

  // Lengths around NMAX (5552) and its blocks of 16, where the refused SCoP runs.
  const main = path.join(work, 'main.c');
  fs.writeFileSync(main, `#include <stdio.h>
unsigned long adler32(unsigned long, const unsigned char *, unsigned int);
static unsigned char buf[3 * 5552 + 40];
int main(void) {
  for (unsigned k = 0; k < sizeof buf; k++) buf[k] = (unsigned char)(k * 7 + (k >> 5));
  unsigned lens[] = { 0, 1, 15, 16, 17, 5551, 5552, 5553, 2 * 5552 + 31, sizeof buf };
  for (unsigned k = 0; k < sizeof lens / sizeof lens[0]; k++) printf("%u %lu\\n", lens[k], adler32(1, buf, lens[k]));
  return 0;
}
`);
  const obj = path.join(work, 'adler32.o');
  runOk('clang-14', ['-c', '-O3', out, '-o', obj]);
  const exe = path.join(work, 'tsopt-adler');
  runOk('clang-14', ['-O3', main, obj, '-o', exe]);
  const ref = path.join(work, 'clang-adler');
  runOk('clang-14', ['-O3', '-D_LARGEFILE64_SOURCE=1', '-DHAVE_HIDDEN', `-I${zlib}`, main, path.join(zlib, 'adler32.c'), '-o', ref]);
  const printed = runOk(exe, []).toString();
  expect(printed.split('\n').length).toBeGreaterThan(10);
  expect(printed).toBe(runOk(ref, []).toString());
}, 300_000);

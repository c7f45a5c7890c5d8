// `--input-as-printed` (issue 16): IR text as clang-14 printed it is parsed as it is, without an
// opt-14 run to read and print it first; tscc gives the flag for its own front end's text. Checked
// through the debug records (which stages ran, never their times) and against the run with opt-14
// reading the same text: the same output, byte for byte.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compileToIr, repoRoot, runOk, tempDir } from '../support/tools';
import { tsopt } from './tsopt-binary';

const FRONT_END = ['-O3', '-fno-vectorize', '-fno-slp-vectorize'];

// A loop tsopt versions, and a local array: the module declares llvm.lifetime.*, whose
// attributes clang prints with `mustprogress` and opt-14 (LLVM's reader) without.
const SOURCE = `#include <stdio.h>
void scale(int n, double *a, const double *b) {
  for (int i = 0; i < n; i++) a[i] = 2.0 * b[i] + a[i];
}
int main(void) {
  double a[1000], b[1000];
  for (int i = 0; i < 1000; i++) { a[i] = i; b[i] = 1000 - i; }
  scale(1000, a, b);
  scale(999, a + 1, a);
  double s = 0;
  for (int i = 0; i < 1000; i++) s += a[i];
  printf("%.1f\\n", s);
  return 0;
}
`;

const dir = tempDir('tsopt-as-printed-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const c = path.join(dir, 'scale.c');
fs.writeFileSync(c, SOURCE);

/** tsopt's stage names (its debug records' messages) and its output for clang's text. */
function throughTsopt(ir: Buffer, extra: readonly string[]): { stages: string[]; out: Buffer } {
  const out = path.join(dir, `out${extra.length}.bc`);
  const r = tsopt(['-', '-o', out, '--log-level=debug', '--log-format=json', '--verify-each', ...extra], ir);
  expect(r.status).toBe(0);
  const stages = r.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => String((JSON.parse(l) as { msg: string }).msg));
  return { stages, out: fs.readFileSync(out) };
}

test('clang-14 text read as printed: no opt-14 run to read it, and the same output', () => {
  const ir = compileToIr(c, FRONT_END, true);
  // The case the comment in cli/run.ts names: opt-14 would print this text differently.
  const reprinted = runOk('opt-14', ['-S', '-disable-debug-info-type-map', '-o', '-', '-'], ir).toString();
  expect(ir.toString()).toMatch(/^attributes #\d+ = \{ argmemonly mustprogress nofree nosync nounwind willreturn \}$/m);
  expect(reprinted).not.toMatch(/argmemonly mustprogress/);
  const viaOpt = throughTsopt(ir, []);
  const asPrinted = throughTsopt(ir, ['--input-as-printed']);
  expect(viaOpt.stages).toContain('read input (opt-14)');
  expect(asPrinted.stages).toContain('read input (as printed)');
  expect(asPrinted.stages).not.toContain('read input (opt-14)');
  expect(asPrinted.stages).toContain('printed'); // a SCoP was versioned: tsopt's own print went to opt
  expect(asPrinted.out.equals(viaOpt.out)).toBe(true);
}, 120_000);

test('tscc gives the flag for its front end text only (TSOPT_FLAGS: bitcode, read by opt-14)', () => {
  const tscc = path.join(repoRoot, 'bin', 'tscc.js');
  const stagesOf = (name: string, env: NodeJS.ProcessEnv): string[] => {
    const file = path.join(dir, `${name}.jsonl`);
    const r = spawnSync(process.execPath, [tscc, '-O3', '-c', c, '-o', path.join(dir, `${name}.o`)], { cwd: dir, encoding: 'utf8', env: { ...process.env, TSCC_SERVER: '0', TSCC_TIME_STAGES: file, ...env } });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    return fs.readFileSync(file, 'utf8').trim().split('\n').flatMap((l) => (JSON.parse(l) as { stages: { stage: string }[] }).stages.map((s) => s.stage));
  };
  const plain = stagesOf('plain', {});
  expect(plain).toContain('tsopt: read input (as printed)');
  expect(plain).not.toContain('tsopt: read input (opt-14)');
  const flagged = stagesOf('flagged', { TSOPT_FLAGS: '--verify-each' });
  expect(flagged).toContain('tsopt: read input (opt-14)');
  // scale's fast path is dropped (opt vectorizes both copies alike): the default run leaves the
  // file to clang-14 -O3 itself (cli/outcome.ts), so its object is clang's; with TSOPT_FLAGS
  // tscc asks for no outcome and writes the post pipeline's object. Both print clang's output.
  expect(plain).toContain('unchanged: clang-14 -O3');
  runOk('clang-14', ['-O3', '-c', c, '-o', path.join(dir, 'clang.o')]);
  expect(fs.readFileSync(path.join(dir, 'plain.o')).equals(fs.readFileSync(path.join(dir, 'clang.o')))).toBe(true);
  const printed = (obj: string): string => {
    runOk('clang-14', [path.join(dir, obj), '-o', path.join(dir, `${obj}.exe`)]);
    return runOk(path.join(dir, `${obj}.exe`), []).toString();
  };
  expect(printed('flagged.o')).toBe(printed('clang.o'));
}, 120_000);

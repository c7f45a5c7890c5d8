// A SCoP inside a loop that is not part of it, whose counter the model uses as a parameter:
// adi built with C99 VLA parameters delinearizes its arrays with the outer counter as
// `iter_<header>` (the row of `u[i][j]` where i runs outside the SCoP). The run-time check
// computes that counter from the outer loop's header PHI (codegen/outer-iteration.ts):
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize -DTSOPT_VLA -emit-llvm adi.c
//     | tsopt --passes=versioning --verify-each --rtc-stats | llc-14 -O3 | clang-14 (link)
// Before, each of kernel_adi's six SCoPs was refused: "a varying expression used as a parameter".
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildKernel, compileKernelToIr, findKernel, runKernel } from '../support/kernels';
import { repoRoot, runOk, tempDir } from '../support/tools';

const work = tempDir('tsopt-outer-counter-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface Scop { location: string; parameters: string[]; versioned?: boolean; notVersioned?: string }

test('adi with VLA parameters: every kernel SCoP versioned with iter_ parameters, fast paths run, output as clang -O3', () => {
  const k = findKernel('adi');
  const bitcode = compileKernelToIr('adi', ['-O3', '-fno-vectorize', '-fno-slp-vectorize'], { vla: true });
  const reportFile = path.join(work, 'adi.report');
  const optimized = runOk('node', [path.join(repoRoot, 'bin', 'tsopt.js'), '--passes=versioning', '--verify-each', '--rtc-stats', `--report=${reportFile}`], bitcode);
  const report = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as { functions: { name: string; scops: Scop[] }[] };
  const scops = report.functions.find((f) => f.name === 'kernel_adi')!.scops;
  expect(scops.filter((s) => s.parameters.some((p) => p.startsWith('iter_'))).length).toBe(6);
  expect(scops.filter((s) => s.versioned !== true)).toEqual([]);

  const obj = path.join(work, 'adi.o');
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], optimized);
  const exe = path.join(work, 'adi');
  runOk('clang-14', [obj, '-o', exe, ...k.libs]);
  const reference = buildKernel('adi', { flags: ['-O3'], vla: true });
  for (const args of [k.args, k.altArgs]) expect(runKernel(exe, args)).toBe(runKernel(reference, args));

  // The checks hold on adi's separate arrays: no SCoP of kernel_adi ran its original code. -O3
  // split each sweep into two alternative SCoPs (%62/%88, %169/%193); at the default size
  // only one of each pair runs, so four of the six take their fast path.
  const stats = path.join(work, 'adi.rtc');
  const r = spawnSync(exe, k.args, { env: { ...process.env, TSOPT_RTC_STATS: stats } });
  expect(r.status).toBe(0);
  const lines = fs.readFileSync(stats, 'utf8').trim().split('\n').filter((l) => l.startsWith('tsopt-rtc: kernel_adi '));
  expect(lines).toHaveLength(6);
  for (const line of lines) expect(line).toMatch(/ slow=0 /);
  expect(lines.filter((l) => / fast=[1-9]/.test(l))).toHaveLength(4);
}, 300_000);

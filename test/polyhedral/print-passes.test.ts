// `tsopt --passes=print<scops>` and `print<dependences>` through the real CLI, like
// Polly's -polly-print-scops / -polly-print-deps: the model on stderr, the module unchanged.
import * as path from 'node:path';
import { tsopt } from '../cli/tsopt-binary';
import { compileToIr, kernelsDir } from '../support/tools';
import { O3 } from './support';

const atax = (): Buffer => compileToIr(path.join(kernelsDir, 'atax.c'), [...O3, '-g', `-I${kernelsDir}`]);

test('print<scops> shows parameters, context, arrays, and each statement\'s domain, schedule and accesses', () => {
  const r = tsopt(['--passes=print<scops>', '-o', '/dev/null'], atax());
  expect(r.status).toBe(0);
  const lines = r.stderr.split('\n').map((l) => l.trim());
  expect(lines).toContain('Function: kernel_atax');
  expect(lines).toContain('SCoP at test/kernels/atax.c:20 (depth 2, 7 statements)');
  expect(lines).toContain('Parameters: m, n');
  expect(lines).toContain('Context: [m, n] -> {  : 0 < m <= 2147483647 and 0 < n <= 2147483647 }');
  expect(lines).toContain('MemRef_A[*][n]  ; array A, 8 bytes, delinearized');
  expect(lines).toContain('Domain := [m, n] -> { Stmt_32[i0] : 0 <= i0 < m }');
  expect(lines).toContain('Schedule := [m, n] -> { Stmt_32[i0] -> [0, i0, 0, 0, 0] }');
  expect(lines).toContain('MustWriteAccess := [m, n] -> { Stmt_32[i0] -> MemRef_tmp[o0 = i0] }');
});

test('print<dependences> shows RAW/WAR/WAW for arrays and scalars apart, and which loops are parallel', () => {
  const r = tsopt(['--passes=print<dependences>', '-o', '/dev/null'], atax());
  expect(r.status).toBe(0);
  const lines = r.stderr.split('\n').map((l) => l.trim());
  for (const kind of ['RAW', 'WAR', 'WAW']) {
    expect(lines.some((l) => l.startsWith(`${kind} dependences (array): [m, n] -> {`))).toBe(true);
    expect(lines.some((l) => l.startsWith(`${kind} dependences (scalar): [m, n] -> {`))).toBe(true);
  }
  expect(lines).toContain('Loop %36 (depth 2, test/kernels/atax.c:24): parallel');
  expect(lines.find((l) => l.startsWith('Loop %32 '))).toMatch(/^Loop %32 \(depth 1, test\/kernels\/atax\.c:20\): carries RAW \(array\)/);
});

test('--isl-max-operations bounds the model: a tiny quota drops the SCoP with the reason', () => {
  const r = tsopt(['--passes=print<scops>', '--isl-max-operations=1000', '-o', '/dev/null'], atax());
  expect(r.status).toBe(0);
  expect(r.stderr).toMatch(/Rejected at test\/kernels\/atax\.c:20: other: isl operations quota \(1000\) exceeded while modelling the SCoP/);
  const bad = tsopt(['--passes=print<scops>', '--isl-max-operations=lots', '-o', '/dev/null'], atax());
  expect(bad.status).toBe(1);
  expect(bad.stderr).toMatch(/isl-max-operations wants a non-negative integer/);
});

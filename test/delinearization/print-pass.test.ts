// `tsopt --passes=print<delinearization>` on a kernel: the printer pass through the real CLI.
import * as path from 'node:path';
import { tsopt } from '../cli/tsopt-binary';
import { compileToIr, kernelsDir } from '../support/tools';

test('print<delinearization> shows set_subarray\'s shape, subscripts and condition', () => {
  const bitcode = compileToIr(path.join(kernelsDir, 'delin-set-subarray.c'), ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-fno-discard-value-names', `-I${kernelsDir}`]);
  const r = tsopt(['--passes=print<delinearization>', '-o', '/dev/null'], bitcode);
  expect(r.stderr).toContain('delinearization for @set_subarray:');
  const lines = r.stderr.split('\n').map((l) => l.trim());
  expect(lines).toContain('A: shape [*][n1][n2] (§3.1), 8 bytes');
  expect(lines).toContain('write A[i0 + o0][i1 + o1][2 * i2 + o2]');
  expect(lines).toContain('tried [*][n1][n2] (§3.1): chosen');
  expect(lines.find((l) => l.startsWith('SCoP condition:'))).toMatch(/n1 >= .*s1/);
  expect(r.status).toBe(0);
});

test('a bad option value is refused with a one-line error', () => {
  const r = tsopt(['--passes=print<delinearization>', '--delinearize-max-shift=-1', '-o', '/dev/null'], 'define void @f() {\n  ret void\n}\n');
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(/delinearize-max-shift wants a non-negative integer/);
});

test('with -g instead of value names, arrays and parameters keep their source names', () => {
  const bitcode = compileToIr(path.join(kernelsDir, 'delin-set-subarray.c'), ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-g', `-I${kernelsDir}`]);
  const r = tsopt(['--passes=print<delinearization>', '-o', '/dev/null'], bitcode);
  const lines = r.stderr.split('\n').map((l) => l.trim());
  expect(lines.some((l) => /^SCoP at \S*delin-set-subarray\.c:25$/.test(l))).toBe(true);
  expect(lines).toContain('A: shape [*][n1][n2] (§3.1), 8 bytes');
  expect(lines).toContain('condition: o2 >= 0 && n2 >= s2 + o2 && o1 >= 0 && n1 >= s1 + o1');
});

// A bad value for a versioning option is the user's error: one line, exit 1, no output file —
// not an internal error (exit 2), which is what a plain Error from the option parser gave.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tsopt } from '../cli/tsopt-binary';
import { compileToIr, kernelsDir, tempDir } from '../support/tools';

const gemm = compileToIr(path.join(kernelsDir, 'gemm.c'), ['-O3', '-fno-vectorize', '-fno-slp-vectorize', `-I${kernelsDir}`]);

const integer = /^tsopt: error: .*wants a non-negative integer/;
const boolean = /^tsopt: error: .*wants true or false/;

test.each([
  ['--rtc-max-alias-pairs=abc', integer],
  ['--codegen-max-operations=-1', integer],
  ['--isl-max-operations=', integer],
  ['--delicm-max-operations=1.5', integer],
  ['--reroll=maybe', boolean],
  ['--interchange=no', boolean],
  ['--rtc-check-functions=yes', boolean],
  ['--rtc-stats=1', boolean],
])('%s: one line naming what the option wants, exit 1, no output', (flag, message) => {
  const out = path.join(tempDir(), 'out.bc');
  const r = tsopt(['--passes=delicm,versioning', flag, '-o', out], gemm);
  expect(r.status).toBe(1);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(message);
  expect(fs.existsSync(out)).toBe(false);
});

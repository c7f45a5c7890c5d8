// A bad value for a versioning option is the user's error: one line, exit 1, no output file —
// not an internal error (exit 2), which is what a plain Error from the option parser gave.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tsopt } from '../cli/tsopt-binary';
import { compileToIr, kernelsDir, tempDir } from '../support/tools';

const gemm = compileToIr(path.join(kernelsDir, 'gemm.c'), ['-O3', '-fno-vectorize', '-fno-slp-vectorize', `-I${kernelsDir}`]);

test.each(['--rtc-max-alias-pairs=abc', '--codegen-max-operations=-1', '--isl-max-operations=', '--delicm-max-operations=1.5'])(
  '%s: one line, exit 1, no output',
  (flag) => {
    const out = path.join(tempDir(), 'out.bc');
    const r = tsopt(['--passes=delicm,versioning', flag, '-o', out], gemm);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^tsopt: error: .*wants a non-negative integer/);
    expect(fs.existsSync(out)).toBe(false);
  },
);

test.each(['--reroll=maybe', '--rtc-check-functions=yes', '--rtc-stats=1'])(
  '%s: a boolean option takes true or false only (one line, exit 1, no output)',
  (flag) => {
    const out = path.join(tempDir(), 'out.bc');
    const r = tsopt(['--passes=versioning', flag, '-o', out], gemm);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^tsopt: error: .*wants true or false/);
    expect(fs.existsSync(out)).toBe(false);
  },
);

// Putting `tscc` and `tscc++` on PATH for tests: a temp bin directory with a wrapper around bin/tscc.js,
// exactly what `npm link`/node_modules/.bin would give a user.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildKernel, runKernel, type KernelInfo } from '../support/kernels';
import { kernelsDir, repoRoot, runOk, tempDir } from '../support/tools';

export interface TsccOnPath {
  bin: string;
  env: NodeJS.ProcessEnv;
}

export function tsccOnPath(extraEnv: NodeJS.ProcessEnv = {}): TsccOnPath {
  const bin = tempDir('tscc-bin-');
  for (const name of ['tscc', 'tscc++']) {
    const wrapper = path.join(bin, name);
    fs.writeFileSync(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${path.join(repoRoot, 'bin', `${name}.js`)}" "$@"\n`);
    fs.chmodSync(wrapper, 0o755);
  }
  // No compile server unless a test asks for one (test/tscc/server.test.ts): each tsopt run is then
  // its own process, whose stages and stderr a test can read, and no server outlives the tests.
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, TSCC_SERVER: '0', ...extraEnv };
  delete env.TSOPT_FLAGS;
  delete env.TSCC_STRICT;
  return { bin, env: { ...env, ...extraEnv } };
}

/** The outputs, at the kernel's default and alternative sizes, of tscc's `-O3 -march=native` build of `kernel` (written into `work`) and of clang -O3's. */
export function tsccAndClangOutputs(kernel: KernelInfo, work: string): { tscc: string[]; clang: string[] } {
  const exe = path.join(work, kernel.name);
  runOk(process.execPath, [path.join(repoRoot, 'bin', 'tscc.js'), '-O3', '-march=native', `-I${kernelsDir}`, kernel.path, '-o', exe, ...kernel.libs]);
  const reference = buildKernel(kernel.name, { flags: ['-O3', '-march=native'] });
  const sizes = [kernel.args, kernel.altArgs];
  return { tscc: sizes.map((args) => runKernel(exe, args)), clang: sizes.map((args) => runKernel(reference, args)) };
}

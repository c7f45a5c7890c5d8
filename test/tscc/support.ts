// Putting `tscc` and `tscc++` on PATH for tests: a temp bin directory with a wrapper around bin/tscc.js,
// exactly what `npm link`/node_modules/.bin would give a user.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot, tempDir } from '../support/tools';

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

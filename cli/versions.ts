// The versions `tsopt --version`, `tscc --version` and the bench's results.json report: tsopt's
// own, the LLVM its gateway and post pipeline run (opt-14), and the isl compiled into isl-wasm.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { version as TSOPT_VERSION } from '../package.json';

export interface ToolVersions {
  readonly tsopt: string;
  /** `14.0.6`, from `opt-14 --version`; `not found` without opt-14. */
  readonly llvm: string;
  /** The isl release isl-wasm was built from (its package version follows isl's). */
  readonly isl: string;
}

/** The first line of `cmd --version` (or of `cmd` with other arguments), or `not found`. */
export function toolVersionLine(cmd: string, args: readonly string[] = ['--version']): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.error || r.status !== 0) return 'not found';
  return `${r.stdout}${r.stderr}`.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? 'not found';
}

export function toolVersions(): ToolVersions {
  const llvmLine = toolVersionLine('opt-14');
  const llvm = /LLVM version (\S+)/.exec(llvmLine)?.[1] ?? llvmLine;
  let isl = 'unknown';
  try {
    isl = (JSON.parse(fs.readFileSync(require.resolve('isl-wasm/package.json'), 'utf8')) as { version: string }).version;
  } catch {
    // isl-wasm is a workspace of this repository; without it tsopt could not run at all.
  }
  return { tsopt: TSOPT_VERSION, llvm, isl };
}

/** `tsopt 0.1.0 (LLVM 14.0.6, isl 0.25.0)`. */
export function versionLine(): string {
  const v = toolVersions();
  return `tsopt ${v.tsopt} (LLVM ${v.llvm}, isl ${v.isl})`;
}

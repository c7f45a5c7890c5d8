// What versioning's run-time checks cost, per program: instructions executed (callgrind) by a
// tscc build, minus those of the same build with every check replaced by an opaque `true`
// (tsopt's `force-fast-path` pass: a volatile load of a global, so the slow path stays in the
// code and only the check's own arithmetic goes). Counted in the kernel functions (`kernel_*`)
// when the program has them, else in the whole program (PolyBench inlines its static kernels).
// Instructions, not time: on this shared 2-core machine timings of a once-per-call check are noise.
// The difference also holds what the check's absence changes in the code around it (register
// allocation, parameter arithmetic the check shared with the fast path), so it can be a few
// instructions either way. Built without -march=native: valgrind 3.19 cannot run AVX-512 code.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_PIPELINE } from '../cli/tsopt';
import type { Program } from './harness';
import { TSCC_JS } from './harness';

export interface CheckCost {
  /** `kernel`: instructions of the `kernel_*` functions; `program`: the whole run. */
  scope: 'kernel' | 'program';
  /** Arguments of the measured run (the program's checking sizes). */
  args: string[];
  /** Instructions with the checks. */
  instructions: number;
  /** Instructions with the checks replaced by `true`; equal builds (no check in the program) give 0 below. */
  forcedInstructions: number;
  /** instructions − forcedInstructions. */
  checkInstructions: number;
  /** checkInstructions / instructions. */
  share: number;
  /** Whether tsopt versioned anything (the two builds differ). */
  versioned: boolean;
}

/** Whether callgrind can run here. */
export function hasCallgrind(): boolean {
  return spawnSync('valgrind', ['--version'], { encoding: 'utf8' }).status === 0;
}

function buildTscc(p: Program, exe: string, tsoptFlags: string): string | undefined {
  const r = spawnSync(process.execPath, [TSCC_JS, '-O3', ...p.flags, ...p.costFlags, ...p.sources, '-o', exe, ...p.libs], {
    encoding: 'utf8', env: { ...process.env, TSOPT_FLAGS: tsoptFlags, TSCC_STRICT: '1' }, maxBuffer: 1 << 28,
  });
  return r.status === 0 ? undefined : (r.stderr ?? '').trim().split('\n')[0] ?? `exit ${r.status}`;
}

/** Instructions callgrind counted, in `kernel_*` or (toggle undefined) in the whole run. */
function callgrindInstructions(exe: string, args: readonly string[], out: string, toggle: boolean): number {
  const r = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, ...(toggle ? ['--toggle-collect=kernel_*'] : []), exe, ...args], {
    encoding: 'utf8', maxBuffer: 1 << 30,
  });
  if (r.status !== 0) throw new Error(`callgrind on ${path.basename(exe)} failed: ${(r.stderr ?? '').trim().split('\n').pop()}`);
  const m = /^totals:\s*(\d+)/m.exec(fs.readFileSync(out, 'utf8'));
  return m ? Number(m[1]) : 0;
}

/** Measures one program; a string says why it could not be measured. */
export function measureCheckCost(p: Program, dir: string): CheckCost | string {
  const normal = path.join(dir, `${p.name}.cost`);
  const forced = path.join(dir, `${p.name}.cost-forced`);
  const err = buildTscc(p, normal, '') ?? buildTscc(p, forced, `--passes=${DEFAULT_PIPELINE},force-fast-path`);
  if (err !== undefined) return `build failed: ${err}`;
  const versioned = !fs.readFileSync(normal).equals(fs.readFileSync(forced));
  try {
    const out = path.join(dir, `${p.name}.callgrind`);
    let scope: CheckCost['scope'] = 'kernel';
    let instructions = callgrindInstructions(normal, p.costArgs, out, true);
    if (instructions === 0) {
      scope = 'program';
      instructions = callgrindInstructions(normal, p.costArgs, out, false);
    }
    const forcedInstructions = versioned ? callgrindInstructions(forced, p.costArgs, out, scope === 'kernel') : instructions;
    const checkInstructions = instructions - forcedInstructions;
    return { scope, args: p.costArgs, instructions, forcedInstructions, checkInstructions, share: checkInstructions / instructions, versioned };
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

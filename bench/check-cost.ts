// What versioning's run-time checks cost, per program, counted exactly: the program is built
// with tscc and `--rtc-check-functions`, which computes each SCoP's check in a noinline function
// of its own (`tsopt.check.<function>.scopN`, codegen/check-outline.ts). Every instruction
// executed in those functions (and in what they call, e.g. libgcc's 128-bit division) is the
// check's, and nothing else is, so callgrind's inclusive count of them is the check's cost; it
// is divided by the instructions of the kernel functions (`kernel_*`, the check calls included)
// or, when the program has none (PolyBench inlines its static kernels), of the whole run.
// The run is at the program's benchmark sizes (`timeArgs`, `timeFlags`: what the bench times).
// Instructions, not time: on this shared 2-core machine timings of a once-per-entry check are noise.
// What the count leaves out and adds: the caller's call instruction and argument moves are not
// counted, the function's own prologue and return are; in the default build the check is
// inline, so these few instructions per entry are the measurement's, not the check's.
// Built without -march=native: valgrind 3.19 cannot run AVX-512 code.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CHECK_FUNCTION_PREFIX } from '../codegen/check-outline';
import type { Program } from './harness';
import { TSCC_JS } from './harness';
import { kernelPrograms } from './suites';

/** One SCoP's check function as callgrind counted it. */
export interface CheckFunctionCost {
  /** `tsopt.check.<function>.scopN`. */
  name: string;
  /** Instructions executed in it and its callees, in the measured scope. */
  instructions: number;
  /** How often it was called there (the SCoP's entries: its fast plus slow runs). */
  calls: number;
}

export interface CheckCost {
  /** `kernel`: instructions of the `kernel_*` functions; `program`: the whole run. */
  scope: 'kernel' | 'program';
  /** Arguments of the measured run (the program's benchmark sizes). */
  args: string[];
  /** Instructions of the scope, the checks included. */
  instructions: number;
  /** Instructions executed by the check functions in the scope. */
  checkInstructions: number;
  /** Calls of check functions in the scope. */
  checkCalls: number;
  /** checkInstructions / instructions. */
  share: number;
  /** Per check function called in the scope. */
  checks: CheckFunctionCost[];
  /** Whether tsopt versioned anything (the program has a check function). */
  versioned: boolean;
}

/** Whether callgrind can run here. */
export function hasCallgrind(): boolean {
  return spawnSync('valgrind', ['--version'], { encoding: 'utf8' }).status === 0;
}

/** Builds `p` at its benchmark sizes with tscc, each check in a function of its own; `tsoptFlags` adds to that. Returns why it failed. */
export function buildTscc(p: Program, exe: string, tsoptFlags = ''): string | undefined {
  const r = spawnSync(process.execPath, [TSCC_JS, '-O3', ...p.flags, ...p.timeFlags, ...p.sources, '-o', exe, ...p.libs], {
    encoding: 'utf8', env: { ...process.env, TSOPT_FLAGS: `--rtc-check-functions ${tsoptFlags}`.trim(), TSCC_STRICT: '1' }, maxBuffer: 1 << 28,
  });
  return r.status === 0 ? undefined : (r.stderr ?? '').trim().split('\n')[0] ?? `exit ${r.status}`;
}

/** A callgrind profile: the total, and per function its inclusive instructions and the calls it received. */
export interface CallgrindProfile {
  total: number;
  functions: Map<string, { self: number; inclusive: number; calls: number }>;
}

/**
 * Reads a callgrind output file (format: valgrind's docs/cl-format): `fn=` starts a function's
 * cost lines, `cfn=` + `calls=` name a call whose next cost line is the callee's inclusive cost
 * (the caller's inclusive, not its self cost). Names may be compressed as `(id) name`, later `(id)`.
 */
export function parseCallgrind(text: string): CallgrindProfile {
  const names = new Map<string, string>();
  const name = (spec: string): string => {
    const m = /^\((\d+)\)(?:\s+(.*))?$/.exec(spec.trim());
    if (!m) return spec.trim();
    if (m[2] !== undefined) names.set(m[1]!, m[2]);
    return names.get(m[1]!) ?? spec.trim();
  };
  const functions: CallgrindProfile['functions'] = new Map();
  const entry = (fn: string) => {
    let e = functions.get(fn);
    if (!e) functions.set(fn, (e = { self: 0, inclusive: 0, calls: 0 }));
    return e;
  };
  let total = 0;
  let current: string | undefined;
  let callee: string | undefined;
  let callCost = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('fn=')) {
      current = name(line.slice(3));
      entry(current);
    } else if (line.startsWith('cfn=')) callee = name(line.slice(4));
    else if (line.startsWith('calls=')) {
      if (callee !== undefined) entry(callee).calls += Number(line.slice(6).trim().split(/\s+/)[0]);
      callCost = true;
    } else if (/^(totals|summary):/.test(line)) total = Number(line.split(':')[1]!.trim().split(/\s+/)[0]);
    else if (/^([+-]?\d|\*|0x)/.test(line) && current !== undefined) {
      // `position cost…`: with one event (Ir) the cost is the second word, absent when 0.
      const cost = Number(line.trim().split(/\s+/)[1] ?? 0);
      const e = entry(current);
      e.inclusive += cost;
      if (!callCost) e.self += cost;
      callCost = false;
    }
  }
  return { total, functions };
}

/** Callgrind's profile of `exe`, collected in `kernel_*` (with their callees) or, when `kernelsOnly` is false, everywhere. */
function callgrind(exe: string, args: readonly string[], out: string, kernelsOnly: boolean): CallgrindProfile {
  const r = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, ...(kernelsOnly ? ['--toggle-collect=kernel_*'] : []), exe, ...args], {
    encoding: 'utf8', maxBuffer: 1 << 30,
  });
  if (r.status !== 0) throw new Error(`callgrind on ${path.basename(exe)} failed: ${(r.stderr ?? '').trim().split('\n').pop()}`);
  return parseCallgrind(fs.readFileSync(out, 'utf8'));
}

/** The check functions' share of a profile. */
export function checkShare(profile: CallgrindProfile): Pick<CheckCost, 'instructions' | 'checkInstructions' | 'checkCalls' | 'share' | 'checks'> {
  const checks = [...profile.functions]
    .filter(([fn, e]) => fn.startsWith(CHECK_FUNCTION_PREFIX) && (e.calls > 0 || e.inclusive > 0))
    .map(([fn, e]) => ({ name: fn, instructions: e.inclusive, calls: e.calls }))
    .sort((a, b) => a.name.localeCompare(b.name));
  const checkInstructions = checks.reduce((n, c) => n + c.instructions, 0);
  const checkCalls = checks.reduce((n, c) => n + c.calls, 0);
  return { instructions: profile.total, checkInstructions, checkCalls, share: profile.total > 0 ? checkInstructions / profile.total : 0, checks };
}

/** Where measureCheckCost leaves the program it measured. */
export function costBinary(p: Program, dir: string): string {
  return path.join(dir, `${p.name}.cost`);
}

/** Measures one program; a string says why it could not be measured. */
export function measureCheckCost(p: Program, dir: string): CheckCost | string {
  const exe = costBinary(p, dir);
  const err = buildTscc(p, exe);
  if (err !== undefined) return `build failed: ${err}`;
  const versioned = fs.readFileSync(exe).includes(Buffer.from(CHECK_FUNCTION_PREFIX));
  try {
    const out = path.join(dir, `${p.name}.callgrind`);
    let scope: CheckCost['scope'] = 'kernel';
    let profile = callgrind(exe, p.timeArgs, out, true);
    if (profile.total === 0) {
      scope = 'program';
      profile = callgrind(exe, p.timeArgs, out, false);
    }
    return { scope, args: p.timeArgs, ...checkShare(profile), versioned };
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * `node dist/bench/check-cost.js [--kernels-dir DIR] [--kernels a,b] [--tiny] [--out DIR]`: the
 * check's cost alone, one line per kernel of DIR (default test/kernels) at its benchmark sizes.
 */
function main(argv: readonly string[]): number {
  let dir = path.join(__dirname, '..', '..', 'test', 'kernels');
  let only: Set<string> | undefined;
  let tiny = false;
  let out = path.join(os.tmpdir(), `tsopt-check-cost-${process.pid}`);
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k]!;
    if (a === '--kernels-dir') dir = argv[++k]!;
    else if (a === '--kernels') only = new Set(argv[++k]!.split(','));
    else if (a === '--tiny') tiny = true;
    else if (a === '--out') out = argv[++k]!;
    else {
      process.stderr.write('usage: node dist/bench/check-cost.js [--kernels-dir DIR] [--kernels a,b] [--tiny] [--out DIR]\n');
      return 1;
    }
  }
  fs.mkdirSync(out, { recursive: true });
  process.stdout.write(`${'kernel'.padEnd(24)}${'args'.padEnd(30)}${'check instr'.padStart(12)}${'entries'.padStart(9)}${'kernel instr'.padStart(16)}  share\n`);
  for (const p of kernelPrograms(dir, only, tiny)) {
    const c = measureCheckCost(p, out);
    const cells = typeof c === 'string' ? [`(${c})`]
      : [String(c.checkInstructions).padStart(12), String(c.checkCalls).padStart(9), String(c.instructions).padStart(16), `  ${c.checkCalls > 0 ? c.share.toExponential(2) : 'no check ran'}${c.scope === 'program' ? ' (program)' : ''}`];
    process.stdout.write(`${p.name.padEnd(24)}${p.timeArgs.join(',').padEnd(30)}${cells.join('')}\n`);
  }
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

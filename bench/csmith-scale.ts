// Csmith at scale: COUNT random programs through `tscc -O3` with TSCC_STRICT=1 (a tsopt
// failure is an error, not a silent fallback to clang), each compared with clang-14 -O3's build.
// Two of every three programs come from loop- and array-rich option sets (no pointers, structs or
// jumps; long arrays), which give more SCoPs than Csmith's defaults.
//
//   npm run build && nice node dist/bench/csmith-scale.js [--count=1000] [--first-seed=1] [--log=FILE]
//
// Prints one line per program that did not agree and, at the end, the counts: agree, mismatch,
// tsopt failure (tscc's strict error, exit 1 from tsopt), crash (tsopt's internal error, exit 2, or
// a signal), timeout, skipped (csmith or clang -O3 could not give a reference), and the SCoPs
// tsopt versioned (from its --report). One core: programs run one after another.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const CSMITH_INCLUDE = '/usr/include/csmith';
const TSCC = path.join(__dirname, '..', '..', 'bin', 'tscc.js');
const COMMON = ['--no-volatiles', '--no-argc'];
const OPTION_SETS: Record<string, string[]> = {
  'loops-2d': ['--no-pointers', '--no-structs', '--no-unions', '--no-jumps', '--no-bitfields', '--max-array-dim', '2', '--max-array-len-per-dim', '64', '--max-funcs', '3', '--max-block-depth', '4'],
  'loops-3d': ['--no-pointers', '--no-structs', '--no-unions', '--no-jumps', '--no-comma-operators', '--no-embedded-assigns', '--max-array-dim', '3', '--max-array-len-per-dim', '24', '--max-funcs', '4'],
  default: ['--max-funcs', '3'],
};
const SETS = Object.keys(OPTION_SETS);

type Verdict = 'agree' | 'mismatch' | 'tsopt-failure' | 'crash' | 'timeout' | 'skipped';

interface Outcome {
  readonly seed: number;
  readonly set: string;
  readonly verdict: Verdict;
  readonly detail?: string;
  readonly scops: number;
  readonly versioned: number;
}

function sh(cmd: string, args: readonly string[], timeoutMs: number, env?: NodeJS.ProcessEnv) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 1 << 26, env: env ? { ...process.env, ...env } : process.env });
  return { status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '', timedOut: r.error !== undefined && /ETIMEDOUT/.test(String(r.error)) };
}

function versionedIn(reportFile: string): { scops: number; versioned: number } {
  if (!fs.existsSync(reportFile)) return { scops: 0, versioned: 0 };
  const r = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as { functions: { scops: { versioned?: boolean }[] }[] };
  const scops = r.functions.flatMap((f) => f.scops);
  return { scops: scops.length, versioned: scops.filter((s) => s.versioned === true).length };
}

function one(seed: number, dir: string): Outcome {
  const set = SETS[seed % SETS.length];
  const base = { seed, set, scops: 0, versioned: 0 };
  const source = path.join(dir, 'p.c');
  const gen = sh('csmith', ['--seed', String(seed), ...COMMON, ...OPTION_SETS[set], '-o', source], 60_000);
  if (gen.status !== 0) return { ...base, verdict: 'skipped', detail: `csmith failed: ${gen.stderr.trim().split('\n')[0]}` };
  const cflags = ['-w', `-I${CSMITH_INCLUDE}`];
  const refExe = path.join(dir, 'ref');
  const ref = sh('clang-14', ['-O3', ...cflags, source, '-o', refExe], 120_000);
  if (ref.status !== 0) return { ...base, verdict: 'skipped', detail: `clang -O3 cannot build it${ref.timedOut ? ' in time' : ''}` };
  const expected = sh(refExe, [], 10_000);
  if (expected.status !== 0) return { ...base, verdict: 'skipped', detail: `clang -O3's build ${expected.timedOut ? 'runs too long' : `exits ${expected.status ?? expected.signal}`}` };
  const exe = path.join(dir, 'tscc');
  const report = path.join(dir, 'report.json');
  fs.rmSync(report, { force: true });
  const built = sh(process.execPath, [TSCC, '-O3', ...cflags, source, '-o', exe], 600_000, { TSCC_STRICT: '1', TSOPT_FLAGS: `--report=${report}` });
  const counts = versionedIn(report);
  if (built.timedOut) return { ...base, ...counts, verdict: 'timeout', detail: 'tscc did not finish in 600 s' };
  if (built.status !== 0) {
    const line = built.stderr.split('\n').find((l) => l.startsWith('tscc: error:')) ?? built.stderr.trim().split('\n')[0] ?? `exit ${built.status}`;
    const crash = /internal error|SIG[A-Z]+|exit (2|null)\b/.test(line);
    return { ...base, ...counts, verdict: crash ? 'crash' : 'tsopt-failure', detail: line };
  }
  const got = sh(exe, [], 40_000);
  if (got.timedOut) return { ...base, ...counts, verdict: 'timeout', detail: "tscc's build runs too long" };
  if (got.stdout !== expected.stdout || got.status !== expected.status) {
    return { ...base, ...counts, verdict: 'mismatch', detail: `printed ${JSON.stringify(got.stdout.trim())}, clang -O3 printed ${JSON.stringify(expected.stdout.trim())}` };
  }
  return { ...base, ...counts, verdict: 'agree' };
}

function main(): void {
  const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
  const count = Number(arg('count', '1000'));
  const first = Number(arg('first-seed', '1'));
  const log = arg('log', '');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsopt-csmith-scale-'));
  const tally = new Map<string, number>();
  let scops = 0;
  let versioned = 0;
  let loopRich = 0;
  try {
    for (let seed = first; seed < first + count; seed++) {
      const o = one(seed, dir);
      tally.set(o.verdict, (tally.get(o.verdict) ?? 0) + 1);
      scops += o.scops;
      versioned += o.versioned;
      if (o.set !== 'default') loopRich++;
      if (log) fs.appendFileSync(log, `${JSON.stringify(o)}\n`);
      if (o.verdict !== 'agree') process.stdout.write(`seed ${seed} (${o.set}): ${o.verdict}${o.detail ? `: ${o.detail}` : ''}\n`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const counts = ['agree', 'mismatch', 'tsopt-failure', 'crash', 'timeout', 'skipped'].map((v) => `${v} ${tally.get(v) ?? 0}`).join(', ');
  process.stdout.write(`${count} programs (seeds ${first}..${first + count - 1}, ${loopRich} from loop-rich option sets): ${counts}; SCoPs: ${scops}, versioned: ${versioned}\n`);
  const bad = (tally.get('mismatch') ?? 0) + (tally.get('tsopt-failure') ?? 0) + (tally.get('crash') ?? 0) + (tally.get('timeout') ?? 0);
  process.exitCode = bad > 0 ? 1 : 0;
}

main();

// The check-cost method of the bench (bench/check-cost.ts): with `--rtc-check-functions` each
// SCoP's run-time check is computed in a function of its own, so callgrind's count of that
// function is exactly what the check executes. Pinned here: the IR shape (the check block only
// calls and branches), the program stays right, and on gemm the count callgrind reports equals
// the function's machine instructions (objdump) times the SCoP's entries (--rtc-stats's
// fast + slow runs), a count taken independently of callgrind.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kernelPrograms } from '../../bench/suites';
import { compileToIr, kernelsDir, repoRoot, run, runOk, tempDir } from '../support/tools';
import { tsopt } from '../cli/tsopt-binary';

// As the bench runs it: from dist/, where it finds bin/tscc.js relative to itself.
// eslint-disable-next-line @typescript-eslint/no-var-requires
const { buildTscc, costBinary, measureCheckCost, parseCallgrind } = require(path.join(repoRoot, 'dist', 'bench', 'check-cost.js')) as typeof import('../../bench/check-cost');

const work = tempDir('tsopt-check-cost-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const fixture = compileToIr(path.join(repoRoot, 'test', 'cli', 'fixtures', 'vectorized.c'), ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-fno-unroll-loops']);

test("--rtc-check-functions: each check block calls its SCoP's own noinline function and branches on the result", () => {
  const r = tsopt(['--passes=versioning', '--rtc-check-functions', '--no-post', '--verify-each', '-S'], fixture);
  expect(r.stderr.toString()).toBe('');
  expect(r.status).toBe(0);
  const text = r.stdout.toString();
  const blocks = [...text.matchAll(/\n(tsopt\.scop(\d+)\.check):[^\n]*\n((?:  [^\n]*\n)+)/g)];
  expect(blocks.length).toBeGreaterThan(0);
  const called: string[] = [];
  for (const [, , k, body] of blocks) {
    const call = /(%\S+) = call i1 @(tsopt\.check\.\w+\.scop(\d+))\(/.exec(body!);
    // axpy's check compares x's and y's ranges; a SCoP whose check is `1` has none to call.
    if (!call) {
      expect(body).toMatch(/br i1 true, label %tsopt\.scop\d+\.fast/);
      continue;
    }
    expect(call[3]).toBe(k);
    expect(body).toContain(`br i1 ${call[1]}, label %tsopt.scop${k}.fast, label %`);
    // Nothing of the check is computed in the block itself any more.
    expect(body).not.toMatch(/icmp|ptrtoint/);
    called.push(call[2]!);
    const header = new RegExp(`define internal i1 @${call[2]!.replace(/\./g, '\\.')}\\([^)]*\\) #(\\d+) \\{`).exec(text);
    expect(header).not.toBeNull();
    expect(text).toContain(`attributes #${header![1]} = { noinline nounwind readnone willreturn }`);
  }
  expect(called).toContain('tsopt.check.axpy.scop0');
  // Without the option the checks stay inline.
  const inline = tsopt(['--passes=versioning', '--no-post', '-S'], fixture).stdout.toString();
  expect(inline).not.toContain('@tsopt.check.');
  expect(inline).toMatch(/\ntsopt\.scop0\.check:[^\n]*\n(?:  [^\n]*\n)*?  %\S+ = icmp /);
});

test('the callgrind reader: self and inclusive cost, calls, compressed names', () => {
  const profile = parseCallgrind([
    'events: Ir', 'fn=(1) kernel_x', '10 5', 'cfn=(2) tsopt.check.kernel_x.scop0', 'calls=3 20', '11 90', '+1 2',
    'fn=(2)', '20 25', 'cfn=(3) __divti3', 'calls=3 0', '21 5', 'totals: 127',
  ].join('\n'));
  expect(profile.total).toBe(127);
  expect(profile.functions.get('kernel_x')).toEqual({ self: 7, inclusive: 97, calls: 0 });
  expect(profile.functions.get('tsopt.check.kernel_x.scop0')).toEqual({ self: 25, inclusive: 30, calls: 3 });
  expect(profile.functions.get('__divti3')).toEqual({ self: 0, inclusive: 0, calls: 3 });
});

test("on gemm the counted check instructions are the check function's machine instructions times the SCoP's entries", () => {
  const [gemm] = kernelPrograms(kernelsDir, new Set(['gemm']), true);
  const cost = measureCheckCost(gemm!, work);
  if (typeof cost === 'string') throw new Error(cost);
  expect(cost).toMatchObject({ scope: 'kernel', versioned: true, args: ['20', '25', '30'] });
  expect(cost.checks.map((c) => c.name)).toEqual(['tsopt.check.kernel_gemm.scop0']);
  const [check] = cost.checks;
  // The function as linked: straight-line code, no call out of it.
  const disassembly = runOk('llvm-objdump-14', ['-d', '--no-show-raw-insn', `--disassemble-symbols=${check!.name}`, costBinary(gemm!, work)]).toString();
  const listed = disassembly.split('\n').filter((l) => /^\s+[0-9a-f]+:\s+\S/.test(l));
  // Up to its one `ret` (the symbol's range also holds the alignment padding after it).
  const instructions = listed.slice(0, listed.findIndex((l) => /\sret/.test(l)) + 1);
  expect(instructions.length).toBeGreaterThan(10);
  expect(instructions.some((l) => /\s(call|j[a-z]+)\s/.test(l))).toBe(false);
  // Entries from the program's own telemetry, in a build that also counts fast and slow runs.
  const statsExe = path.join(work, 'gemm.stats');
  expect(buildTscc(gemm!, statsExe, '--rtc-stats')).toBeUndefined();
  const ran = run(statsExe, gemm!.timeArgs);
  expect(ran.status).toBe(0);
  const line = /tsopt-rtc: kernel_gemm \S+ scop0: fast=(\d+) slow=(\d+)/.exec(ran.stderr.toString());
  expect(line).not.toBeNull();
  const entries = Number(line![1]) + Number(line![2]);
  expect(entries).toBe(1);
  expect(check!.calls).toBe(entries);
  expect(check!.instructions).toBe(instructions.length * entries);
  expect(cost.checkInstructions).toBe(check!.instructions);
  expect(cost.share).toBeCloseTo(check!.instructions / cost.instructions, 12);
  // Both builds print what clang -O3's build prints (the timing build's flags, -DTSOPT_TIME: all
  // but the last line, the kernel's time).
  const clangExe = path.join(work, 'gemm.clang');
  runOk('clang-14', ['-O3', ...gemm!.flags, ...gemm!.timeFlags, ...gemm!.sources, '-o', clangExe, ...gemm!.libs]);
  const untimed = (out: Buffer) => {
    const lines = out.toString().split('\n');
    expect(lines.slice(-2)).toEqual([expect.stringMatching(/^kernel-seconds: [0-9.]+$/), '']);
    return lines.slice(0, -2).join('\n');
  };
  const expected = untimed(runOk(clangExe, gemm!.timeArgs));
  expect(untimed(ran.stdout)).toBe(expected);
  expect(untimed(runOk(costBinary(gemm!, work), gemm!.timeArgs))).toBe(expected);
}, 300_000);

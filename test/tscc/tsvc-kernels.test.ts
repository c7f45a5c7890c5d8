// The TSVC-shaped kernels (test/kernels/tsvc-*.c, issue 24) through tscc's front end and tsopt
// with its post pipeline and the profitability rule (passes/profitability.ts), as tscc builds
// them: each prints what clang -O3's build prints, at the default and the alternative sizes, and
// the report gives every versioned SCoP the rule's decision and its reason.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFER_UNROLLING } from '../../cli/tscc';
import { buildKernel, listKernels, runKernel } from '../support/kernels';
import { compileToIr, kernelsDir, repoRoot, runOk, tempDir } from '../support/tools';

const tsopt = path.join(repoRoot, 'bin', 'tsopt.js');
const work = tempDir('tsopt-tsvc-kernels-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface Scop { location: string; versioned?: boolean; vectorized?: boolean; fastPathKept?: boolean; profitability?: string; interchangedLoops?: string[] }
type Report = { functions: { name: string; scops: Scop[]; rejected?: { cause: string }[] }[] };

/** tscc's front end (-march=native, as the bench builds), tsopt with its post pipeline, llc, link. */
function throughTsopt(name: string, file: string, march = 'native'): { exe: string; report: Report } {
  const ir = compileToIr(file, ['-O3', `-march=${march}`, '-fno-vectorize', '-fno-slp-vectorize', ...DEFER_UNROLLING, `-I${kernelsDir}`]);
  const report = path.join(work, `${name}-${march}.json`);
  const bitcode = runOk('node', [tsopt, '--verify-each', `--report=${report}`], ir);
  const obj = path.join(work, `${name}-${march}.o`);
  runOk('llc-14', ['-O3', `-mcpu=${march}`, '-relocation-model=pic', '-filetype=obj', '-o', obj], bitcode);
  const exe = path.join(work, `${name}-${march}`);
  runOk('clang-14', [obj, '-o', exe, '-lm']);
  return { exe, report: JSON.parse(fs.readFileSync(report, 'utf8')) as Report };
}

const kernels = listKernels('tsvc');
/**
 * Kernels with no SCoP: s277's guards are data, and s276's statement reads a select of two base
 * pointers, so tsopt must leave the loop to clang (test/tscc/loop-align.test.ts, opt-target.test.ts);
 * s441's and s278's branches test data (their passes run before the SCoPs: sink-stores.test.ts,
 * hoist-loads.test.ts).
 */
const NO_SCOP = new Set(['tsvc-guard', 'tsvc-select', 'tsvc-branch-store', 'tsvc-branch-load']);

test('there are kernels of every shape issue 24 lists', () => {
  expect(kernels.map((k) => k.name).sort()).toEqual(['tsvc-branch-load', 'tsvc-branch-store', 'tsvc-distribute', 'tsvc-guard', 'tsvc-last-index', 'tsvc-reorder', 'tsvc-scalar-temp', 'tsvc-select', 'tsvc-stride2', 'tsvc-wraparound']);
});

describe.each(kernels.map((k) => [k.name, k] as const))('%s', (name, k) => {
  test("prints what clang -O3's build prints, and the report states the rule's decision and reason for every versioned SCoP", () => {
    const { exe, report } = throughTsopt(name, k.path);
    const reference = buildKernel(name, { flags: ['-O3', '-march=native'] });
    for (const args of [k.args, k.altArgs]) expect(runKernel(exe, args)).toBe(runKernel(reference, args));
    const scops = report.functions.flatMap((f) => f.scops.map((s) => ({ fn: f.name, ...s })));
    const versioned = scops.filter((s) => s.versioned === true);
    if (NO_SCOP.has(name)) {
      expect(scops.filter((s) => s.fn.startsWith('kernel_'))).toEqual([]);
      return;
    }
    expect(versioned.length).toBeGreaterThan(0);
    for (const s of versioned) {
      expect({ scop: s.location, kept: typeof s.fastPathKept, reason: typeof s.profitability }).toEqual({ scop: s.location, kept: 'boolean', reason: 'string' });
      expect(s.profitability!.length).toBeGreaterThan(10);
    }
  }, 300_000);
});

// The fast path of s1251's shape is the original loop regenerated (same order, a check of `1`),
// and opt vectorizes both copies (AVX2 pins the vectorizer's choices): nothing to gain, so the
// original code runs, as clang -O3 compiles it (passes/fast-path-gain.ts).
test('tsvc-scalar-temp: opt vectorizes both paths and the fast path gains nothing: the original code runs', () => {
  const k = kernels.find((x) => x.name === 'tsvc-scalar-temp')!;
  const { exe, report } = throughTsopt(k.name, k.path, 'haswell');
  const [s] = report.functions.find((f) => f.name === 'kernel_scalar_temp')!.scops;
  expect(s).toMatchObject({ versioned: true, vectorized: true, fastPathKept: false });
  expect(s!.profitability).toMatch(/^opt vectorized both paths and the fast path is the original loops in their order, and its check proves nothing/);
  const reference = buildKernel(k.name, { flags: ['-O3', '-march=haswell'] });
  expect(runKernel(exe, k.altArgs)).toBe(runKernel(reference, k.altArgs));
}, 300_000);

// s233's and s2233's shapes: the first column walk goes to a nest of its own, turned around,
// though the loop over i carries the second loop's dependence (s233); the second loop keeps its
// order in a nest of its own, a column walk whose i loop carries it (s233) or a row walk (s2233);
// the fast path is kept (transform/interchange.ts).
test('tsvc-distribute: the column walk i does not carry is turned around in a nest of its own, and the fast path is kept', () => {
  const k = kernels.find((x) => x.name === 'tsvc-distribute')!;
  const { exe, report } = throughTsopt(k.name, k.path);
  const scop = (fn: string) => report.functions.find((f) => f.name === fn)!.scops;
  // One inner loop turned in each: the first (s233's second reads what the previous i wrote,
  // s2233's second walks a row).
  for (const fn of ['kernel_two_column_walks', 'kernel_column_then_row']) {
    expect([fn, scop(fn)]).toEqual([fn, [expect.objectContaining({ versioned: true, fastPathKept: true, interchangedLoops: [expect.stringMatching(/^%\d+ <-> %\d+$/)] })]]);
  }
  const reference = buildKernel(k.name, { flags: ['-O3', '-march=native'] });
  for (const args of [k.args, k.altArgs, ['2', '256']]) expect(runKernel(exe, args)).toBe(runKernel(reference, args));
}, 300_000);

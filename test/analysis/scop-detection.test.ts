// SCoP detection on clang-14 -O3 output (vectorizers off, -g for file:line):
// one fixture function per rejection cause, and our C kernels compared with
// what Polly finds on the same sources (test/kernels/polly-reference.json, from
// `clang-14 -O3 -mllvm -polly -Rpass-analysis=polly-scops -Rpass-missed=polly-detect`).
//
// Polly and we look at different IR: Polly runs inside clang's pipeline before
// the loop unroller and before indvars has widened every IV; tsopt reads the
// finished -O3 output, with runtime-unrolled loops (an unrolled body plus a
// remainder loop), merged guards and memsets. Detection also differs on purpose:
// we have no profitability filter (a later pass decides), we reject non-affine
// branches instead of modelling them as non-affine subregions, and we read
// casts in subscripts as the values they extend (the polyhedral model records
// the no-wrap assumption) where Polly 14 gives up on a wrapping sext.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compileC, fn, analyses } from './helpers';
import { scopDetectionAnalysis } from '../../analysis/scop-detection';
import { printScopDetection } from '../../passes/analysis-printers';
import type { RejectionCause, ScopDetectionResult } from '../../analysis/scop-detection-types';
import { findKernel } from '../support/kernels';
import { kernelsDir } from '../support/tools';
import type { Module } from '../../ir';

function detect(m: Module, name: string): ScopDetectionResult {
  return analyses().get(scopDetectionAnalysis, fn(m, name));
}

function causes(r: ScopDetectionResult): RejectionCause[] {
  return [...new Set(r.rejections.map((x) => x.cause))].sort();
}

describe('rejection causes', () => {
  let m: Module;
  beforeAll(() => {
    m = compileC('causes.c', ['-g']);
  });

  // function -> [causes, line of the first rejection]; an empty list means a SCoP.
  const expected: [string, RejectionCause[], number | undefined][] = [
    ['pow2_steps', ['non-affine-access', 'non-canonical-indvar'], 5],
    ['square_subscript', ['non-affine-access'], 11],
    ['square_bound', ['non-affine-access', 'non-affine-loop-bound'], 16],
    ['early_exit', ['complex-cfg'], 21],
    ['volatile_store', ['other'], 30],
    ['opaque_call', ['function-call'], 35],
    ['pure_call', [], undefined],
    ['readonly_call', ['function-call'], 63],
    ['restrict_pointers', [], undefined],
  ];
  test.each(expected)('%s', (name, want, line) => {
    const r = detect(m, name);
    expect(causes(r)).toEqual(want);
    if (line !== undefined) expect(r.rejections[0]!.location).toMatch(new RegExp(`causes\\.c:${line}$`));
    if (want.length === 0) expect(r.scops).toHaveLength(1);
  });

  test('a call splits a function into SCoPs before and after it; -O3\'s re-tested guards split further', () => {
    const r = detect(m, 'split_by_call');
    // The first two loops are not one region: -O3 tests n > 0 again after the first loop and
    // jumps from there straight to the printf, a second exit. Polly at this position would agree.
    expect(r.scops.map((s) => s.location.replace(/^.*causes\.c/, 'causes.c'))).toEqual(['causes.c:51', 'causes.c:53', 'causes.c:57']);
    // The call itself is in no loop: nothing is rejected.
    expect(r.rejections).toEqual([]);
  });

  test('an unsigned count-down exit that may wrap is an unsigned comparison', () => {
    const loops = compileC('loops.c', ['-g']);
    const r = detect(loops, 'countdown');
    expect(causes(r)).toEqual(['unsigned-comparison']);
    // The remainder loop (peeled in front by the unroller) counts up to n mod 8 and is a SCoP.
    expect(r.scops).toHaveLength(1);
  });

  test('an unsigned count-down exit that stops at a non-negative bound before zero reads as signed', () => {
    // tscc's front end (no runtime unrolling): `for (j = 998; j >= 1; j--)` exits on `icmp ugt %j, 1`.
    const loops = compileC('loops.c', ['-g', '-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false']);
    const r = detect(loops, 'countdown_to_one');
    expect(r.rejections).toEqual([]);
    expect(r.scops).toHaveLength(1);
    expect(r.scops[0]!.depth).toBe(2);
  });

  test('a run-time alias check -O3 inserted (a pointer comparison) is the aliasing cause', () => {
    const adi = compileC('kernels/adi.c', ['-g', '-DTSOPT_VLA']);
    const r = detect(adi, 'kernel_adi');
    expect(causes(r)).toEqual(['aliasing']);
    expect(r.rejections[0]!.detail).toMatch(/run-time alias check .* \(pointer comparison\)$/);
    // The loops on either side of the check are SCoPs of their own.
    expect(r.scops.length).toBeGreaterThan(1);
  });

  test('alias pairs: restrict (noalias) arguments are distinct from everything; others pair with what is written', () => {
    const r = detect(m, 'restrict_pointers');
    expect(r.scops[0]!.aliasPairs).toEqual([]);
    const g = compileC('kernels/gemm.c', ['-g']);
    const gemm = detect(g, 'kernel_gemm').scops[0]!;
    // C (written) against A and B; A and B are only read.
    expect(gemm.aliasPairs.map((p) => `${p.aName}/${p.bName}`)).toEqual(['%5/%6', '%5/%7']);
  });

  test('the printer gives one line per SCoP and per rejection', () => {
    const text = printScopDetection(fn(m, 'opaque_call'), analyses());
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('scop detection for @opaque_call:');
    expect(lines[1]).toMatch(/^ {2}reject function-call at .*causes\.c:35: call to @consume$/);
    expect(lines).toHaveLength(2);
  });
});

/** What Polly concluded for a function (from polly-reference.json). */
type PollyVerdict = 'scop' | 'unprofitable' | 'dismissed' | 'rejected';

interface KernelExpectation {
  /** SCoPs we find in each kernel function (0: rejected, with `causes`). */
  readonly scops: Record<string, number>;
  readonly causes?: Record<string, RejectionCause[]>;
  /** Polly's verdict per kernel function ('unprofitable': a valid region its heuristics skip). */
  readonly polly: Record<string, PollyVerdict>;
  /** Why we differ from Polly, for each function where one of us finds a valid region and the other does not. */
  readonly differences?: Record<string, string>;
}

const unrolledLate = 'at the late position the inner loops are runtime-unrolled; we read the unrolled body, the remainder loop and its guards (floor divisions by the unroll factor)';

const kernels: Record<string, KernelExpectation> = {
  gemm: { scops: { kernel_gemm: 1 }, polly: { kernel_gemm: 'scop' } },
  '2mm': {
    scops: { kernel_2mm: 2 },
    polly: { kernel_2mm: 'dismissed' },
    differences: {
      kernel_2mm: 'Polly builds one SCoP and dismisses it: its assumptions (in-bounds, no-alias) come out infeasible. ' +
        'We only detect (assumptions are the model\'s business) and find two SCoPs: -O3 turned tmp\'s zero-initialisation ' +
        'into a memset on the path where nk <= 0, and a memset is a call we do not model, so the two nests are separate regions.',
    },
  },
  atax: { scops: { kernel_atax: 1 }, polly: { kernel_atax: 'scop' } },
  bicg: { scops: { kernel_bicg: 1 }, polly: { kernel_bicg: 'scop' } },
  mvt: { scops: { kernel_mvt: 1 }, polly: { kernel_mvt: 'scop' } },
  'jacobi-2d': {
    scops: { kernel_jacobi_2d: 1 },
    polly: { kernel_jacobi_2d: 'rejected' },
    differences: {
      kernel_jacobi_2d: 'Polly rejects A[i*n + j-1]: the int subscript becomes sext(i*n + j - 1) of a 32-bit value without nsw, "not affine". ' +
        'We read the sext (an ashr/shl pair after -O3) as the value it extends; the model records the no-wrap assumption, as C\'s int overflow rule allows.',
    },
  },
  'seidel-2d': { scops: { kernel_seidel_2d: 1 }, polly: { kernel_seidel_2d: 'scop' } },
  covariance: { scops: { kernel_covariance: 1 }, polly: { kernel_covariance: 'scop' } },
  'detect-triangular': {
    scops: { kernel_triangular: 1 },
    polly: { kernel_triangular: 'rejected' },
    differences: {
      kernel_triangular: 'Polly rejects L[i*n + i] as a non-affine subscript (a sext of a wrapping 32-bit product); after -O3 the subscript is a widened ' +
        '64-bit recurrence, and the inner loop bound j < i is unrolled by 2 into floor(i/2), quasi-affine; ' + unrolledLate,
    },
  },
  'detect-data-dependent': {
    scops: { kernel_clip: 0 },
    causes: { kernel_clip: ['complex-cfg'] },
    polly: { kernel_clip: 'unprofitable' },
    differences: {
      kernel_clip: 'Polly models the branch on x[i] > limit as a non-affine subregion (one statement with may-writes), finds the region valid ' +
        'and then unprofitable; we do not build non-affine subregions and reject the data-dependent branch as complex-cfg.',
    },
  },
  'detect-printf': {
    // kernel_scale: both valid; Polly's profitability heuristic skips a single loop, detection has no such filter.
    scops: { kernel_scale: 1, kernel_print_prefix: 0 },
    causes: { kernel_print_prefix: ['function-call'] },
    polly: { kernel_scale: 'unprofitable', kernel_print_prefix: 'rejected' },
  },
  'detect-unsigned': {
    // Both loops are valid for Polly too (unsigned comparisons read under "signed-unsigned" assumptions), then unprofitable.
    scops: { kernel_window_sum: 1, kernel_copy_span: 1 },
    polly: { kernel_window_sum: 'unprofitable', kernel_copy_span: 'unprofitable' },
  },
  'detect-linked-list': {
    scops: { kernel_list_scale: 0 },
    causes: { kernel_list_scale: ['non-affine-access', 'non-affine-loop-bound'] },
    polly: { kernel_list_scale: 'rejected' },
  },
};

interface PollyReference {
  kernels: Record<string, { flat: {
    scops: { function?: string; status: string }[];
    rejected: { function?: string; causes: string[] }[];
  } }>;
}

const pollyReference = (): PollyReference =>
  JSON.parse(fs.readFileSync(path.join(kernelsDir, 'polly-reference.json'), 'utf8')) as PollyReference;

function pollyVerdict(ref: PollyReference, kernel: string, fnName: string): PollyVerdict {
  const flat = ref.kernels[kernel]!.flat;
  const scops = flat.scops.filter((s) => s.function === fnName).map((s) => s.status);
  if (scops.includes('scop')) return 'scop';
  if (scops.includes('unprofitable')) return 'unprofitable';
  const rejected = flat.rejected.filter((r) => r.function === fnName);
  if (rejected.length > 0 && rejected.every((r) => r.causes.every((c) => /No profitable polyhedral optimization/.test(c)))) return 'unprofitable';
  if (scops.includes('dismissed')) return 'dismissed';
  return 'rejected';
}

describe('kernels, compared with Polly', () => {
  const ref = pollyReference();
  test.each(Object.keys(kernels))('%s', (kernel) => {
    const want = kernels[kernel]!;
    const m = compileC(`kernels/${kernel}.c`, ['-g']);
    const kernelFunctions = findKernel(kernel).functions.filter((f) => f.isKernel).map((f) => f.name);
    expect(Object.keys(want.scops).sort()).toEqual([...kernelFunctions].sort());
    for (const name of kernelFunctions) {
      const r = detect(m, name);
      expect({ name, scops: r.scops.length }).toEqual({ name, scops: want.scops[name] });
      if (want.scops[name] === 0) {
        expect({ name, causes: causes(r) }).toEqual({ name, causes: want.causes?.[name] });
        for (const rej of r.rejections) expect(rej.location).toMatch(new RegExp(`${kernel}\\.c:\\d+$`));
      }
      const polly = pollyVerdict(ref, kernel, name);
      expect({ name, polly }).toEqual({ name, polly: want.polly[name] });
      // Every difference from Polly is explained above, and every explanation is of a real difference.
      const pollyValid = polly === 'scop' || polly === 'unprofitable';
      const agrees = (r.scops.length > 0) === pollyValid;
      expect({ name, explained: want.differences?.[name] !== undefined }).toEqual({ name, explained: !agrees });
    }
  });

  test('gemm: one SCoP for the whole nest, at the outer loop, with the polynomial subscripts marked for delinearization', () => {
    const m = compileC('kernels/gemm.c', ['-g']);
    const [scop] = detect(m, 'kernel_gemm').scops;
    expect(scop!.location).toMatch(/gemm\.c:22$/); // Polly: "SCoP begins here" at 22:3
    expect(scop!.depth).toBe(3);
    expect(scop!.parameters.map((p) => p.name)).toEqual(['%0', '%1', '%2']);
    expect(scop!.needsDelinearization).toBe(true);
    const forms = new Set(scop!.statements.flatMap((s) => s.accesses.map((a) => a.form)));
    expect(forms).toEqual(new Set(['polynomial']));
  });

  test('gemm as C99 VLAs: the same SCoP, the subscripts just as polynomial (clang linearizes VLA subscripts too)', () => {
    const m = compileC('kernels/gemm.c', ['-g', '-DTSOPT_VLA']);
    const r = detect(m, 'kernel_gemm');
    expect(r.scops).toHaveLength(1);
    expect(r.scops[0]!.needsDelinearization).toBe(true);
  });
});

// Which SCoPs of our kernels (kernel_* functions and main, clang-14 -O3) get a fast path.
// Every SCoP is versioned except those listed here, each with the reason versioning gives.
// None of the reasons left is about wiring the fast path in (values live after the SCoP,
// loads crossing statements): those are merged and passed through slots now. What remains
// belongs to other parts of issue 6 and issue 5:
//   - NO_BOUND: an access delinearization could not recover is over-approximated to the
//     whole array, so no alias check can bound it (issue 5: flat `int` subscripts whose
//     -O3 sign extension has no no-wrap proof, adi's counters of loops outside the SCoP);
//   - PRODUCT: the check would multiply three or more factors in i128 (a delinearized
//     size times a counter bound times an element size), which may overflow (runtime-checks);
//   - QUOTA: window_sum's modulo-2^32 accesses exceed the isl quota for the check and AST.
// A listed SCoP that becomes versioned is fine (the list is of known gaps, not of wishes);
// any other SCoP left unversioned fails the test.
const NO_BOUND = /the SCoP accesses have no bound \(over-approximated accesses\)/;
const PRODUCT = /a product of more than two factors may not fit 128 bits/;
const QUOTA = /isl exceeded its quota/;

export const notVersionedYet: Readonly<Record<string, Readonly<Record<string, RegExp>>>> = {
  adi: { 'kernel_adi:%20': NO_BOUND },
  correlation: { 'kernel_correlation:%94': NO_BOUND, 'kernel_correlation:%236': NO_BOUND },
  'delin-listing5': { 'main:%88': PRODUCT, 'main:%106': PRODUCT },
  'delin-reg-detect': { 'main:%229': PRODUCT },
  'delin-set-subarray': { 'main:%229': PRODUCT, 'main:%232': PRODUCT, 'main:%243': PRODUCT },
  'delin-stencil-alpha': { 'main:%110': PRODUCT, 'main:%115': PRODUCT, 'main:%176': PRODUCT },
  'detect-triangular': { 'main:%52': NO_BOUND },
  'detect-unsigned': { 'kernel_window_sum:%10': QUOTA },
  doitgen: { 'main:%163': PRODUCT },
  'fdtd-2d': { 'kernel_fdtd_2d:%9': NO_BOUND },
  'heat-3d': { 'kernel_heat_3d:%6': NO_BOUND, 'main:%106': PRODUCT, 'main:%158': PRODUCT },
  'jacobi-2d': { 'kernel_jacobi_2d:%6': NO_BOUND },
  trmm: { 'main:%70': NO_BOUND },
};

/** The SCoPs of `kernel` that are neither versioned nor a known gap with its reason: `location: reason` lines. */
export function unexpectedlyNotVersioned(kernel: string, scops: readonly { location: string; versioned?: boolean; notVersioned?: string }[]): string[] {
  const known = notVersionedYet[kernel] ?? {};
  return scops
    .filter((s) => s.versioned !== true && !(known[s.location]?.test(s.notVersioned ?? '') ?? false))
    .map((s) => `${s.location}: ${s.notVersioned ?? '(no reason)'}`);
}

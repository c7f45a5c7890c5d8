// Which SCoPs of our kernels (kernel_* functions and main, clang-14 -O3) get a fast path: all of
// them. The list below is for known gaps, each with the reason versioning gives (a RegExp), and
// it is empty: values live after a SCoP are merged, loads crossing statements pass through
// slots, flat `int` subscripts are delinearized under a no-wrap check, products of three or more
// factors are guarded, counters of enclosing loops are read from their header PHIs, and
// modulo-2^32 accesses fit the budget since the check ranges are taken under the assumptions.
// A SCoP left unversioned fails the test; add it here only with the reason and why it is right.
export const notVersionedYet: Readonly<Record<string, Readonly<Record<string, RegExp>>>> = {};

/** The SCoPs of `kernel` that are neither versioned nor a known gap with its reason: `location: reason` lines. */
export function unexpectedlyNotVersioned(kernel: string, scops: readonly { location: string; versioned?: boolean; notVersioned?: string }[]): string[] {
  const known = notVersionedYet[kernel] ?? {};
  return scops
    .filter((s) => s.versioned !== true && !(known[s.location]?.test(s.notVersioned ?? '') ?? false))
    .map((s) => `${s.location}: ${s.notVersioned ?? '(no reason)'}`);
}

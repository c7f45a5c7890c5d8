// What a fast path can gain over the original code it guards, for the profitability rule
// (passes/profitability.ts). A fast path pays only through something the original code lacks:
// another loop order (interchange, the schedule optimizer's tiles), loops rerolled, scalars
// DeLICM moved out of memory, loops run on OpenMP's threads, or a check that proves what opt
// had to assume (no aliasing, the model's assumptions). Without any of these the fast path is
// the original loops, regenerated from isl's AST: opt can only compile it differently, not
// better, and the check and the second copy are pure cost.
//
// Such a fast path is judged by what opt-14's vectorizers made of both copies (issue 24, TSVC):
//   - both vectorized (s1251, s243, s2244): no gain; the original code runs;
//   - only the fast path vectorized, and only by gathering or scattering elements one address
//     at a time (`llvm.masked.gather`/`llvm.masked.scatter`: s111's and s1111's stride-2
//     accesses, which the fast path's 64-bit counters let opt write as address vectors): opt's
//     cost model kept the original loop scalar, and its estimate for a gather or scatter is the
//     one that errs (0.84x clang -O3 on test/kernels/tsvc-stride2.c); the original code runs.
// Anything else is left to the rule's other cases.
import { calledFunction, type Module } from '../ir';
import { scopeDomainNames } from './vectorized';
import type { PathMemoryOps } from './register-gain';

/** The versioning result's fields the rule reads (passes/versioning.ts). */
export interface FastPathFields {
  readonly runtimeCheckParts?: readonly { label: string }[];
  readonly interchangedLoops?: readonly string[];
  readonly rerolledLoops?: number;
  readonly schedule?: { taken?: boolean };
  readonly fastPathFrom?: string;
  readonly ompParallelLoops?: readonly string[];
}

/** What the fast path has that the original code has not (empty: it is the original loops). */
export function fastPathGains(f: FastPathFields): string[] {
  const gains: string[] = [];
  // The parameter-range part (parameters within ±2^60) only keeps the fast path's own 64-bit
  // arithmetic exact: the original code assumed nothing it proves.
  const parts = (f.runtimeCheckParts ?? []).filter((p) => p.label !== 'parameter-range');
  if (parts.length > 0) gains.push(`its check proves ${parts.map((p) => p.label).join(', ')}`);
  if ((f.interchangedLoops ?? []).length > 0) gains.push('interchanged loops');
  if (f.schedule?.taken === true) gains.push("the schedule optimizer's order");
  if ((f.rerolledLoops ?? 0) > 0) gains.push('rerolled loops');
  if (f.fastPathFrom === 'delicm') gains.push("DeLICM's scalars in registers");
  if ((f.ompParallelLoops ?? []).length > 0) gains.push("OpenMP's threads");
  return gains;
}

const GATHER_SCATTER = /^llvm\.masked\.(gather|scatter)\./;

/** The fast paths (by fastPathName) whose vector code gathers or scatters (calls to llvm.masked.gather/scatter carrying their alias scopes). */
export function gatheringFastPaths(m: Module): Set<string> {
  const found = new Set<string>();
  const cache = new Map<string, string[]>();
  for (const fn of m.functions) {
    if (fn.isDeclaration) continue;
    for (const block of fn.blocks) {
      for (const inst of block.instructions) {
        if (inst.opcode !== 'call' || !GATHER_SCATTER.test(calledFunction(inst)?.name ?? '')) continue;
        const scopes = inst.metadata.find((md) => md.name === 'alias.scope');
        if (scopes) for (const name of scopeDomainNames(m, scopes.ref, cache)) found.add(name);
      }
    }
  }
  return found;
}

/** What the rule decides for a fast path with no gain (fastPathGains empty), or undefined to leave it to the other cases. */
export function decideWithoutGain(fastVectorized: boolean, slowVectorized: boolean, gathers: boolean): { kept: false; reason: string } | undefined {
  const same = 'the fast path is the original loops in their order, and its check proves nothing the original code had to assume';
  if (fastVectorized && slowVectorized) return { kept: false, reason: `opt vectorized both paths and ${same}: the original code runs, without the check` };
  if (fastVectorized && !slowVectorized && gathers) {
    return { kept: false, reason: `opt vectorized the fast path only with gathers or scatters (one address per element) and left the original code scalar, and ${same}: the original code runs, without the check` };
  }
  return undefined;
}

/**
 * Whether the fast path's only gain is its check proving no aliasing (and the model's
 * assumptions): the original loops in their order, no reordering, rerolling, DeLICM or threads.
 */
export function checkIsOnlyGain(f: FastPathFields): boolean {
  const parts = f.runtimeCheckParts ?? [];
  return parts.some((p) => p.label.startsWith('alias(')) && fastPathGains(f).length === 1;
}

/**
 * A fast path opt vectorized, whose only gain is its check, where opt vectorized the original
 * code too (with its own run-time alias check): the check can only pay through values kept in
 * registers or more loops in vector code. The measure is passes/register-gain.ts's, per path's
 * innermost loops, with a margin: both copies hold the same loops, so their loads and stores per
 * floating-point operation differ only by what opt's remainder loops left (durbin: 115 for 41
 * against 124 for 44, the same loops), and a gain must be more than that (atax: its sum kept in
 * a register). Without a gain, the fast path is the original code again behind a second check,
 * run at every entry (durbin: once per k, 20% more instructions than clang -O3's build at
 * MEDIUM). Returns the decision to drop it, or undefined to leave it to the rule's other cases.
 */
export function decideBothVectorized(counts: { fast: PathMemoryOps; slow: PathMemoryOps }): { kept: false; reason: string } | undefined {
  const { fast, slow } = counts;
  if (fast.loops === 0 || slow.loops === 0 || fast.floating === 0 || slow.floating === 0) return undefined;
  if (fast.vectorLoops > slow.vectorLoops) return undefined;
  // fast.memory / fast.floating < (1 - MARGIN) slow.memory / slow.floating, in integers
  if (fast.memory * slow.floating * MARGIN_DENOMINATOR < slow.memory * fast.floating * (MARGIN_DENOMINATOR - 1)) return undefined;
  const ratio = (p: PathMemoryOps): string => `${p.memory} loads and stores for ${p.floating} floating-point operations, ${p.vectorLoops} of ${p.loops} loops in vector code`;
  return {
    kept: false,
    reason: `opt vectorized both paths, the fast path's only gain is its check, and opt kept no more values in registers nor more loops in vector code in it (innermost loops: fast path ${ratio(fast)}, original code ${ratio(slow)}): the original code runs, without the check`,
  };
}

/** The gain in loads and stores per operation a fast path must show over its vectorized original: 1/20. */
const MARGIN_DENOMINATOR = 20;

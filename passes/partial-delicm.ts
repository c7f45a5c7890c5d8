// DeLICM models that map only the scalars of the nests an interchange moves (passes/scop-sources.ts,
// lu's second nest). The schedule optimizer leaves them in their interchanged order: isl's tiled
// schedule of PolyBench ludcmp's such model (VLA build, MEDIUM) printed wrong results, while the
// interchanged order alone prints clang -O3's; the cause is not found yet.
import type { ScopModel } from '../polyhedral/model';

const partial = new WeakSet<ScopModel>();

/** Marks `model` as DeLICM's model restricted to some scalars. */
export function markPartialDelicm(model: ScopModel): void {
  partial.add(model);
}

/** `model` maps only some scalars (markPartialDelicm). */
export function isPartialDelicm(model: ScopModel): boolean {
  return partial.has(model);
}

// The rows of the matmul path's micro-tile told apart for opt, for parametric sizes.
//
// In the full micro-tiles the micro-kernel's i loop is unrolled into Mr copies of the j loop,
// copy r running the micro-tile's row r. With constant sizes opt sees that the copies' elements
// of C lie a constant row length apart, and LICM keeps the Mr x Nr tile in registers across k.
// With a row length known only at run time it cannot: each copy's store may write another
// copy's elements, so the tile is loaded and stored on every k. Here the tree marks the
// unrolled i loop (`matmulRowsMark`) when distinct rows of the micro-tile touch distinct
// elements of C in the model; codegen/matmul-rows.ts then gives each copy's accesses to C an
// alias scope of its own, noalias with the other copies'. The model's elements are memory's
// under the fast path's run-time check (the check is what makes the model's dependences, and
// so every reordering, valid), so the scopes add no assumption of their own.
import { DimType, MultiUnionPwAff, Set as IslSet, UnionMap, type UnionSet } from 'isl-wasm';
import type { ScopModel, ScopStatementModel } from '../polyhedral/model';
import { pointSpace } from '../polyhedral/relations';

/** The mark above the unrolled i band of a full micro-tile whose rows touch distinct elements of C. */
export const matmulRowsMark = 'tsopt_matmul_rows';

/**
 * Whether the instances of `st` (over `domain`) that touch one element of the array it writes
 * all have one value of `iMember` (the band member playing i): then two instances in
 * different rows of a micro-tile (different values of the member) never touch one element.
 */
export function rowsApart(model: ScopModel, st: ScopStatementModel, domain: UnionSet, iMember: MultiUnionPwAff): boolean {
  const write = st.accesses.find((a) => a.kind === 'write' && a.array.kind === 'array');
  if (!write) return false;
  const instances = domain.intersect(st.domain.toUnionSet()).intersectParams(model.context);
  // { S[x] -> C[e] }: every access of st to the written array
  const touched = st.accesses
    .filter((a) => a.array === write.array)
    .map((a) => a.relation.toUnionMap())
    .reduce((x, y) => x.union(y))
    .intersectDomain(instances);
  // { S[x] -> S[y] }: pairs of instances that touch one element
  const sharing = touched.applyRange(touched.reverse());
  // { S[x] -> [i] }
  const i = UnionMap.fromMultiUnionPwAff(iMember).intersectDomain(instances);
  // { [d] }: how far apart along i the two instances of each pair run
  const apart = i.reverse().applyRange(sharing).applyRange(i).deltas();
  // { [0] }
  return apart.isSubset(IslSet.universe(pointSpace(model.ctx, 1)).fixSi(DimType.set, 0, 0).toUnionSet());
}

/**
 * Why the matmul path does not take `st` at parametric sizes (undefined: it does, or the sizes
 * are constants): an operand would need packing (`needsPacking`: read across rows along j) and
 * `pack` (--matmul-parametric-pack, on by default: buffers sized at run time) is off, or, given
 * the band (its schedule and the member playing i), its micro-tile's rows of C are not apart
 * (rowsApart).
 */
export function parametricRefusal(
  model: ScopModel, st: ScopStatementModel, needsPacking: boolean, pack: boolean, band?: { mupa: MultiUnionPwAff; i: number },
): string | undefined {
  if (model.context.dim(DimType.param) === 0) return undefined;
  if (needsPacking && !pack) return 'parametric sizes and an operand to pack';
  if (band && !rowsApart(model, st, band.mupa.domain(), MultiUnionPwAff.fromUnionPwAff(band.mupa.getAt(band.i)))) return 'parametric sizes and rows of C not apart';
  return undefined;
}

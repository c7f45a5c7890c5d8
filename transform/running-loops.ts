// Which loop of a statement actually runs innermost. -O3 peels first iterations into statements
// of their own (lu's and cholesky's `A[i][0] /= A[0][0]`, the j = 0 of the j loop): such a
// statement keeps the peeled loop's dimension, fixed to one value (`Stmt[i0, i1 = 0]`), so taking
// that dimension for its innermost loop says it walks nothing, while the loop that repeats it is
// the one around (walking `A[i][0]` down a column in either order). The cost model compares the
// loops that repeat the statement, old and new.
import type { ScopModel, ScopStatementModel } from '../polyhedral/model';
import { equalUpTo, relationOf, tupleMapSpace } from '../polyhedral/relations';

/**
 * The innermost dimension of `st`, at `d` or outside it, along which some instance has a later
 * one with the same outer counters (the loop runs it twice or more); 'none' when every dimension
 * up to `d` runs it at most once. isl objects are made in the caller's scope.
 */
export function innermostRunning(model: ScopModel, st: ScopStatementModel, d: number): number | 'none' {
  const n = st.loops.length;
  const space = tupleMapSpace(model.ctx, { name: st.name, dims: n }, { name: st.name, dims: n });
  for (let k = d; k >= 0; k--) {
    // { S[i..] -> S[o..] : o_m = i_m (m < k), o_k > i_k }: a later instance along dimension k
    const along = relationOf(space, (i, o, pairs) => equalUpTo(pairs, i, o, k).intersect(i[k]!.ltSet(o[k]!))).toUnionMap();
    const domain = st.domain.toUnionSet();
    if (!along.intersectDomain(domain).intersectRange(domain).intersectParams(model.context).isEmpty()) return k;
  }
  return 'none';
}

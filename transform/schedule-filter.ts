// Cheap profitability filters before isl's scheduler (issue 16). The optimizer
// (transform/schedule-optimizer.ts) takes isl's schedule only when it tiles a band or walks fewer
// accesses across rows innermost than the original (or interchanged) order; these tests find the
// SCoPs where neither can happen, from the model alone, so isl's scheduler, which on loops of
// non-kernel code with data-dependent bounds (zlib's inffast.c and adler32.c) ran to its quota and
// gained nothing, is not run on them:
//
//   no statement in two loops or more   isl's scheduler adds band members only while some
//                                        statement's rows lack full rank: one loop gives one
//                                        member, so no band of two to tile, nothing for the matmul
//                                        path, and each statement's innermost member walks the
//                                        loop it walked (or a skew, which the optimizer refuses)
//   nothing walks across rows, no reuse  no access walks across rows innermost in the base order
//                                        (nothing to cut), and no access to a matrix stays on one
//                                        element along some loop (tiling needs one: `reused`)
//
// Time tiling (transform/time-tiling.ts) is tried before these, with its own cheaper tests.
import type { ScopModel, ScopStatementModel } from '../polyhedral/model';
import { stride } from './interchange';
import { acrossRows, walksMatrix } from './schedule-optimizer';

/** No statement of `model` sits in two loops or more (no isl). */
export function noNest(model: ScopModel): boolean {
  return model.statements.every((st) => st.loops.length < 2);
}

/**
 * Why isl's scheduler cannot give `model` a schedule the optimizer would take, or undefined when
 * it may. `baseInnermost(st)`: the dimension of `st` the base order runs innermost. isl objects
 * in a scope of their own; runs within the caller's budget step.
 */
export function schedulerNotWorthIt(model: ScopModel, baseInnermost: (st: ScopStatementModel) => number): string | undefined {
  if (noNest(model)) return 'no statement is in two loops or more: isl\'s schedule could tile no band and would walk the same rows';
  return model.ctx.scope(() => {
    for (const st of model.statements) {
      if (st.loops.length === 0) continue;
      if (acrossRows(model, st, baseInnermost(st)) > 0) return undefined;
    }
    const reusable = model.statements.some((st) => st.accesses.some((a) =>
      a.array.kind === 'array' && walksMatrix(model, st, a) && st.loops.some((_, d) => stride(model, st, a, d) === 'invariant')));
    return reusable ? undefined : 'no access walks across rows innermost and none to a matrix stays on one element along a loop: isl\'s schedule could tile no band and walk no fewer rows';
  });
}

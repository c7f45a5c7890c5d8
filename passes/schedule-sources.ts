// DeLICM's model for the schedule optimizer (issue 22). -O3's loop-invariant code motion leaves
// values computed in an outer loop and read in an inner one: syrk's `alpha * A(i, k)` above its
// j loop, in the uBLAS build. Their scalar dependences (every inner instance reads what the outer
// instance wrote, before the next outer iteration overwrites it) keep isl's scheduler from making
// the nest one permutable band, so the optimizer has nothing to tile. Operand-tree forwarding
// (DeLICM's part that is Polly's ForwardOpTree) recomputes such a value where it is read, and the
// nest becomes one band, tiled as Polly tiles it.
//
// DeLICM's model is taken only when its schedule tiles more bands than the plain model's, or when
// time tiling takes it and not the plain model (seidel-2d's PHI of the element just written):
// elsewhere the plain model stays, since DeLICM's mappings would put -O3's register sums back into
// memory (cli/tsopt.ts, DEFAULT_PIPELINE).
import { IslError } from 'isl-wasm';
import type { InterchangePlan } from '../transform/interchange';
import type { ScopModel } from '../polyhedral/model';
import { delicmFor } from './delicm';
import type { PassContext } from './pass';
import { innermostDim, keepDecision, keepTimeTiled, scheduleDecision, scheduleQuota, timeTiled, type ScheduleSettings } from './schedule';
import { notStencilShaped } from '../transform/time-tiling';
import { noNest } from '../transform/schedule-filter';
import { NestRefused, noRowJamNestByLoops, rowJam, rowJamShape } from '../transform/row-jam';
import { hasScalars, noPlaceOnArrays, rightLooking, rightLookingMaxOperations, rightLookingNest, rightLookingShape } from '../transform/right-looking';

/**
 * True when some value crosses from a statement into one in a deeper loop: what LICM hoisted,
 * the only scalars forwarding can take out of a nest's way (a cheap test before DeLICM runs).
 */
export function hoistedOutOfLoops(model: ScopModel): boolean {
  const writerDepth = new Map<string, number>();
  for (const st of model.statements) {
    for (const a of st.accesses) {
      if (a.array.kind === 'value' && a.kind === 'write') writerDepth.set(a.array.tupleName, st.loops.length);
    }
  }
  return model.statements.some((st) => st.accesses.some((a) => a.kind === 'read' && a.array.kind === 'value' && (writerDepth.get(a.array.tupleName) ?? Infinity) < st.loops.length));
}

/**
 * How many bands the optimizer tiles in `model`'s schedule, 0 when it keeps the base order. The
 * decision is kept for versioning's ask with the same plan (`keepDecision`), not made again.
 */
function tiledBands(model: ScopModel, plan: InterchangePlan | undefined, s: ScheduleSettings): number {
  const d = scheduleDecision(model, plan, s);
  const tiled = d.schedule !== undefined ? d.tiled.length : 0;
  if (s.shortcuts) keepDecision(model, plan, d);
  else {
    d.schedule?.dispose();
    d.oneThreadSchedule?.dispose();
  }
  return tiled;
}

/**
 * DeLICM's model of `m` when forwarding lets the optimizer tile more of it than of `m`, else
 * undefined. `planFor` gives a model's interchange plan as versioning will read it.
 */
export function delicmForTiling(ctx: PassContext, m: ScopModel, s: ScheduleSettings, planFor: (model: ScopModel) => InterchangePlan | undefined): ScopModel | undefined {
  const stencil = delicmForTimeTiling(ctx, m, s);
  if (stencil) return stencil;
  const jammed = delicmForRowJam(ctx, m, s);
  if (jammed) return jammed;
  const right = delicmForRightLooking(ctx, m, s, planFor);
  if (right) return right;
  // Forwarding changes no loop: without a statement in two loops, no model has a band to tile.
  if (!s.tile || m.budget.exhaustedBy || (s.shortcuts && noNest(m)) || !hoistedOutOfLoops(m)) return undefined;
  const r = delicmFor(ctx, m, s.shortcuts);
  if (r.unchanged !== undefined || r.counters.forwards === 0) return undefined;
  const after = tiledBands(r.model, planFor(r.model), s);
  if (after === 0 || after <= tiledBands(m, planFor(m), s)) return undefined;
  return r.model;
}

/**
 * DeLICM's model of `m` when the row jam takes it and not `m`: -O3 keeps each row's sum in a
 * PHI, one location for every row, so no two rows' sums can run together; mapped onto the
 * element the row writes (trisolv's x[i]), each row sums in its own. Else undefined.
 */
function delicmForRowJam(ctx: PassContext, m: ScopModel, s: ScheduleSettings): ScopModel | undefined {
  if (s.rowJam === 0 || m.budget.exhaustedBy) return undefined;
  if (!m.statements.some((st) => st.accesses.some((a) => a.array.kind !== 'array'))) return undefined;
  // Within the optimizer's quota, the shape's test too (it reads the exact dataflow, which can
  // cost millions of operations on a nest the jam has nothing to do with); isl giving up leaves
  // the plain model, as in the optimizer.
  const jams = (model: ScopModel): boolean =>
    model.budget.run(model.ctx, 'schedule', scheduleQuota(model, s), () => {
      const j = rowJam(model, { factor: s.rowJam });
      if ('decision' in j) j.decision.schedule?.dispose();
      return 'decision' in j;
    });
  // Only a nest of the jam's shape is of use here: where the loops alone rule one out, the shape's
  // flows (the exact dataflow) are not read.
  if (noRowJamNestByLoops(m)) return undefined;
  try {
    const shape = m.budget.run(m.ctx, 'schedule', scheduleQuota(m, s), () => rowJamShape(m));
    if (typeof shape === 'string' || shape instanceof NestRefused) return undefined;
    if (jams(m)) return undefined;
    const r = delicmFor(ctx, m, s.shortcuts);
    if (r.unchanged !== undefined || r.model.budget.exhaustedBy) return undefined;
    return jams(r.model) ? r.model : undefined;
  } catch (e) {
    if (e instanceof IslError) return undefined;
    throw e;
  }
}

/**
 * DeLICM's model of a stencil `m` when time tiling takes it and not `m`: seidel-2d's in-place
 * update, where -O3 carries the element just written to the next iteration in a PHI, whose
 * scalar dependences tie every point to the one before it; mapped back to the array element, it
 * leaves the array's own dependences, which a skew orders. Else undefined.
 */
function delicmForTimeTiling(ctx: PassContext, m: ScopModel, s: ScheduleSettings): ScopModel | undefined {
  if (!s.timeTile || m.budget.exhaustedBy || notStencilShaped(m) !== undefined) return undefined;
  if (!m.statements.some((st) => st.accesses.some((a) => a.array.kind !== 'array'))) return undefined;
  // The stencil test reads the exact dependences and time tiling runs isl: within the optimizer's
  // quota, and isl giving up leaves the plain model, as it does in the optimizer. The result is
  // kept for the optimizer (`keepTimeTiled`), which then does not tile the same model again.
  const timeTiledBy = (model: ScopModel): boolean =>
    model.budget.run(model.ctx, 'schedule', scheduleQuota(model, s), () => {
      const t = timeTiled(model, s);
      const taken = 'decision' in t;
      if (s.shortcuts) keepTimeTiled(model, t);
      else if (taken) {
        t.decision.schedule?.dispose();
        t.decision.oneThreadSchedule?.dispose();
      }
      return taken;
    });
  try {
    if (timeTiledBy(m)) return undefined;
    if (s.shortcuts && forwardingCannotMakeAStencil(m)) return undefined;
    const r = delicmFor(ctx, m, s.shortcuts);
    if (r.unchanged !== undefined || r.model.budget.exhaustedBy) return undefined;
    return timeTiledBy(r.model) ? r.model : undefined;
  } catch (e) {
    if (e instanceof IslError) return undefined;
    throw e;
  }
}

/**
 * `m`, which time tiling refused, would be refused in DeLICM's model too (a cheap test before
 * DeLICM runs): its loops alone refuse it (one space dimension), or its outermost loop carries no
 * flow of values, of arrays or scalars. Forwarding and mapping change no loop, and the array flow
 * of DeLICM's model is the plain model's plus the flow of the scalars it mapped.
 */
function forwardingCannotMakeAStencil(m: ScopModel): boolean {
  const looped = m.statements.filter((st) => st.loops.length > 0);
  if (Math.max(...looped.map((st) => st.loops.length - 1)) < 2) return true;
  return !m.dependences.carriesFlow(looped[0]!.loops[0]!);
}

/**
 * DeLICM's model of `m`, with every scalar mapped, when the right-looking order takes it
 * (transform/right-looking.ts): -O3 keeps lu's sums in PHIs, one location for every row, so no
 * order but the rows' own is legal on the plain model; mapped onto the elements they update, the
 * reduction loop can run outermost. The decision is kept for versioning's ask. Else undefined.
 */
function delicmForRightLooking(ctx: PassContext, m: ScopModel, s: ScheduleSettings, planFor: (model: ScopModel) => InterchangePlan | undefined): ScopModel | undefined {
  if (!s.rightLooking || m.budget.exhaustedBy || !hasScalars(m)) return undefined;
  try {
    // The loops and the plain model's array dependences first: DeLICM costs more.
    const quota = Math.min(scheduleQuota(m, s), rightLookingMaxOperations);
    if (m.budget.run(m.ctx, 'schedule', quota, () => rightLookingNest(m) ?? noPlaceOnArrays(m)) !== undefined) return undefined;
    const r = delicmFor(ctx, m, s.shortcuts);
    if (r.unchanged !== undefined || r.model.budget.exhaustedBy || hasScalars(r.model)) return undefined;
    if (rightLookingShape(r.model) !== undefined) return undefined;
    // The order alone, not the whole optimizer: where it refuses, isl's scheduler on this model
    // would only spend its quota again (adi: 1.3M operations) for a model not taken.
    const plan = planFor(r.model);
    const right = r.model.budget.run(r.model.ctx, 'schedule', Math.min(scheduleQuota(r.model, s), rightLookingMaxOperations), () => rightLooking(r.model, innermostDim(plan), s));
    if (!('decision' in right)) return undefined;
    if (s.shortcuts) keepDecision(r.model, plan, right.decision);
    else right.decision.schedule?.dispose();
    return r.model;
  } catch (e) {
    if (e instanceof IslError) return undefined;
    throw e;
  }
}

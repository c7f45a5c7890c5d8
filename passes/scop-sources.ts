// Which model each SCoP's fast path is generated from: the plain model, DeLICM's when the
// `delicm` pass ran before, or DeLICM's for an interchange (transform/interchange.ts) that
// only -O3's scalars block, when its mappings cost nothing elsewhere.
import { IslError } from 'isl-wasm';
import type { IrFunction } from '../ir';
import type { InterchangePlan } from '../transform/interchange';
import { type InterchangePlans, interchangePlanAnalysis } from '../transform/interchange-plans';
import type { FunctionScopModels, ScopAccess, ScopModel } from '../polyhedral/model';
import { isMappedAccess } from '../codegen/mapped-accesses';
import { CheckTooLargeError } from '../polyhedral/check-parts';
import { appliedDelicm, delicmFor } from './delicm';
import type { AnalysisKey, PassContext } from './pass';
import { modelAnalysisFrom } from './scop-passes';
import type { ScheduleSettings } from './schedule';
import { delicmForTiling } from './schedule-sources';

/** `interchange`: --interchange; `maxOperations`: the isl quota of each interchange plan (--codegen-max-operations). */
export interface SourceOptions {
  readonly interchange: boolean;
  readonly maxOperations: number;
  /** The schedule optimizer's settings (versioning's): DeLICM's model where only its forwarding lets a nest be tiled. */
  readonly schedule?: ScheduleSettings;
  /**
   * Versioning's: a model's run-time check parts (polyhedral/check-parts.ts, made once per model).
   * The plain model's is made before any probe: where isl gives up on it, the plain model is the
   * source, with no probe (nussinov's kernel: the row jam's dataflow, 1M operations, then a check
   * past its quota). A probe could have picked DeLICM's model, whose check is another: of the
   * 30 PolyBench kernels' SCoPs, only nussinov's fails on the plain model, and it kept no fast
   * path before either.
   */
  readonly checkParts?: (model: ScopModel) => unknown;
}

/** A SCoP's model to generate from (DeLICM's when it applies) and the model of the code as it is. */
export interface ScopSource {
  readonly model: ScopModel;
  readonly original: ScopModel;
  readonly from: 'delicm' | 'model';
  /** The plain model's source, tried when DeLICM's model, chosen for an interchange, keeps no fast path. */
  readonly fallback?: ScopSource;
  /** Why DeLICM's model was not taken for an interchange that only scalars block (for the report). */
  readonly delicmNotTaken?: string;
  /** The only scalars DeLICM's model may map, when it was restricted to the nests interchanged (the report's `delicmMappedOnly`). */
  readonly delicmMappedOnly?: readonly string[];
}

/**
 * The models of `fn`'s SCoPs, DeLICM's results when the `delicm` pass ran before and they are
 * still valid. Otherwise the plain models, but DeLICM's for a SCoP with a nest worth
 * interchanging that only scalars keep in order (-O3's reductions in PHIs), when DeLICM maps them.
 * `wanted` picks the SCoPs to give a source (the others cost no interchange plan or DeLICM).
 */
export function scopSources(ctx: PassContext, fn: IrFunction, analysis: AnalysisKey<FunctionScopModels>, o: SourceOptions, wanted: (m: ScopModel) => boolean = () => true): ScopSource[] {
  const delicm = appliedDelicm(ctx, fn);
  // A SCoP DeLICM left unchanged (its quota ran out) is generated from the plain model, and says so.
  if (delicm) return delicm.scops.filter((r) => wanted(r.original)).map((r) => ({ model: r.model, original: r.original, from: r.unchanged === undefined ? 'delicm' : 'model' }));
  return ctx.am.get(analysis, fn).models.filter(wanted).map((m) => sourceFor(ctx, m, o));
}

/** The plain model `m`, or DeLICM's for an interchange that only scalars block (also what `print<interchange>` shows). */
export function sourceFor(ctx: PassContext, m: ScopModel, o: SourceOptions): ScopSource {
  const plain: ScopSource = { model: m, original: m, from: 'model' };
  if (o.checkParts && !m.budget.exhaustedBy) {
    try {
      o.checkParts(m);
    } catch (e) {
      if (e instanceof IslError || e instanceof CheckTooLargeError) return plain;
      throw e;
    }
  }
  if (o.schedule) {
    const planFor = (model: ScopModel) => (o.interchange && !model.budget.exhaustedBy ? interchangePlansFor(ctx, model, o.maxOperations).planFor(model) : undefined);
    const tiled = delicmForTiling(ctx, m, o.schedule, planFor);
    if (tiled) return { model: tiled, original: m, from: 'delicm', fallback: plain };
  }
  if (!o.interchange) return plain;
  const plans = interchangePlansFor(ctx, m, o.maxOperations);
  if (!interchangeSays(plans, m, o, (p) => p.nests.length === 0 && p.refused.some((r) => r.byScalars))) return plain;
  // DeLICM's model only to interchange: without it, its memory traffic for -O3's register sums costs time.
  const r = delicmFor(ctx, m, o.schedule?.shortcuts ?? false);
  if (r.unchanged !== undefined) return { ...plain, delicmNotTaken: r.unchanged };
  let why = 'no nest to interchange in it';
  let nestScalars: Set<string> | undefined;
  const take = interchangeSays(plans, r.model, o, (p) => {
    if (p.nests.length === 0) return false;
    why = 'it would keep a sum in memory beside other elements of its array, in a loop left in place (opt cannot keep it in a register)';
    if (!mappedBesideOtherElements(r.model, p)) return true;
    nestScalars = scalarsOfNests(m, p);
    return false;
  });
  if (take) return { model: r.model, original: m, from: 'delicm', fallback: plain };
  // lu: its second nest interchanges once its sum lives in A[i][j], but the first nest's sum, mapped
  // too, would be summed in memory beside A[i][k]. Mapped only where the nests interchanged are.
  const only = nestScalars && nestScalars.size > 0 ? delicmFor(ctx, m, false, nestScalars) : undefined;
  if (only && only.unchanged === undefined && only.model !== m) {
    const mine = interchangeSays(plans, only.model, o, (p) => p.nests.length > 0 && !mappedBesideOtherElements(only.model, p));
    if (mine) return { model: only.model, original: m, from: 'delicm', fallback: plain, delicmMappedOnly: [...nestScalars!].sort() };
  }
  return { ...plain, delicmNotTaken: why };
}

/** The scalar locations the statements of `plan`'s nests touch, by the names the plain model `m` gives them (DeLICM keeps statement names). */
function scalarsOfNests(m: ScopModel, plan: InterchangePlan): Set<string> {
  const names = new Set(plan.nests.flatMap((n) => n.statements.map((st) => st.name)));
  return new Set(m.statements.filter((st) => names.has(st.name)).flatMap((st) => st.accesses.filter((a) => a.array.kind !== 'array').map((a) => a.array.tupleName)));
}

/**
 * A scalar DeLICM mapped to an array element in a statement the interchange leaves in place,
 * where opt cannot keep it in a register again: its loop also touches other elements of that
 * array (alias scopes tell arrays apart, not elements of one). lu's `A[i][j] -= A[i][k] * A[k][j]`
 * summed in memory makes its fast path slower than clang -O3's code. isl objects in the caller's scope.
 */
function mappedBesideOtherElements(model: ScopModel, plan: InterchangePlan): boolean {
  const moved = new Set(plan.nests.flatMap((n) => n.statements));
  for (const st of model.statements) {
    if (moved.has(st)) continue;
    const mapped = st.accesses.filter(isMappedAccess);
    if (mapped.length === 0) continue;
    // Only a loop's repeated accesses matter: the statement is in an innermost loop.
    const loop = st.loops[st.loops.length - 1];
    if (!loop || model.loops.some((l) => l.parent === loop)) continue;
    const neighbours = model.statements.filter((s) => s !== st && s.loops[s.loops.length - 1] === loop);
    for (const a of mapped) {
      if (neighbours.some((s) => s.accesses.some((b) => b.array === a.array))) return true;
      // [params] -> { Stmt_S[..] -> MemRef_A[..] }: the elements the mapped accesses touch, where the model holds
      const touched = (b: ScopAccess) => b.relation.intersectDomain(st.domain).intersectParams(model.context);
      const elements = mapped.filter((b) => b.array === a.array).map(touched).reduce((x, y) => x.union(y));
      for (const b of st.accesses) {
        if (b.array === a.array && !isMappedAccess(b) && !touched(b).isSubset(elements)) return true;
      }
    }
  }
  return false;
}

/** The interchange plans of `model`'s function (cached; one plan per model, plain or DeLICM's). */
export function interchangePlansFor(ctx: PassContext, model: ScopModel, maxOperations: number): InterchangePlans {
  return ctx.am.get(interchangePlanAnalysis(modelAnalysisFrom(ctx), maxOperations), model.function);
}

/** What `question` answers of `model`'s interchange plan (false when isl gives up), its isl work charged to the SCoP's budget. */
function interchangeSays(plans: InterchangePlans, model: ScopModel, o: SourceOptions, question: (plan: InterchangePlan) => boolean): boolean {
  const plan = plans.planFor(model);
  if (plan === undefined || model.budget.exhaustedBy) return false;
  try {
    return model.budget.run(model.ctx, 'interchange', o.maxOperations, () => model.ctx.scope(() => question(plan)));
  } catch (e) {
    if (e instanceof IslError) return false;
    throw e;
  }
}

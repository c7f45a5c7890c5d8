// The `delicm` pass and its printer `print<delicm>`: DeLICM on every
// SCoP model of every function (transform/delicm). The transformed models are
// an analysis (`delicmAnalysisFor`), cached next to the models they come from,
// for the report (`delicm` field) and for code generation. The IR is not changed here.
//
// How the pipeline says "generate from DeLICM's model": the `delicm` pass leaves its
// results cached as applied (`appliedDelicm`), as Polly's DeLICM leaves the transformed
// Scop for its code generator. A later `versioning` generates the fast path from them
// (`--passes=delicm,versioning`) as long as no pass in between changed the IR (which
// drops them). print<delicm> and the report compute the same analysis but apply nothing.
import { type IrFunction, type Module, printInstruction } from '../ir';
import { type DelicmScopResult, defaultDelicmMaxOperations, runDelicm, scalarWritesInLoops, unchangedDelicm } from '../transform/delicm';
import type { FunctionScopModels, ScopModel } from '../polyhedral/model';
import { printDependences, printScopModel } from '../polyhedral/print';
import type { AnalysisKey, ModulePass, PassContext, PassOption } from './pass';
import { nonNegativeIntegerOption } from './pass';
import { maxOperationsOption, modelAnalysisFrom, scopMaxOperationsOption } from './scop-passes';

export const delicmMaxOperationsOption: PassOption = {
  name: 'delicm-max-operations',
  description: `isl operations DeLICM may spend per SCoP, a step of --scop-max-operations; past it the SCoP stays unchanged and the report says why (default ${defaultDelicmMaxOperations}, 0 = no limit)`,
};

/** DeLICM's results for one function, one per model, in the models' order. */
export interface FunctionDelicm {
  readonly function: IrFunction;
  readonly scops: readonly DelicmScopResult[];
}

/** DeLICM over the models `models` computes, with a quota per SCoP. */
export function delicmAnalysisFor(models: AnalysisKey<FunctionScopModels>, maxOperations = defaultDelicmMaxOperations): AnalysisKey<FunctionDelicm> {
  return {
    name: `delicm(${models.name},max-ops=${maxOperations})`,
    compute: (fn, am) => ({ function: fn, scops: am.get(models, fn).models.map((m) => delicmWithinBudget(m, maxOperations)) }),
  };
}

/** The key under which the `delicm` pass marks its results as applied (computed from, and dropped with, `analysis`). */
function appliedKey(analysis: AnalysisKey<FunctionDelicm>): AnalysisKey<FunctionDelicm> {
  return { name: `applied ${analysis.name}`, compute: (fn, am) => am.get(analysis, fn) };
}

/** DeLICM's results for `fn` if the `delicm` pass ran earlier in the pipeline and they are still valid. */
export function appliedDelicm(ctx: PassContext, fn: IrFunction): FunctionDelicm | undefined {
  return ctx.am.getCached(appliedKey(analysisFrom(ctx)), fn);
}

/**
 * DeLICM spends from the SCoP's budget (polyhedral/budget.ts), under the smaller of its own quota and
 * half of what the budget has left. It is optional: when it gives up, the SCoP stays as it was and must
 * still be versioned from the plain model, so it never takes the budget's last part (had it exhausted
 * the budget, versioning would find nothing left and keep no fast path).
 */
function delicmWithinBudget(m: ScopModel, maxOperations: number, onlyLocations?: ReadonlySet<string>): DelicmScopResult {
  const left = m.budget.remaining;
  const share = Math.floor(left / 2);
  const own = maxOperations > 0 ? maxOperations : Infinity;
  const limit = Math.min(own, share);
  // Under a quota runDelicm turns every isl failure into `unchanged`: no limit at all is the largest quota.
  // Counted here, outside DeLICM's quota: a spent quota must still let the result say what it left.
  const before = scalarWritesInLoops(m);
  if (limit === Infinity) return m.budget.run(m.ctx, 'delicm', 0, () => runDelicm(m, { maxOperations: 0xffff_ffff, scalarWritesBefore: before, onlyLocations }));
  const byShare = `DeLICM's share of the SCoP's isl budget (half of the ${left} operations left of --scop-max-operations)`;
  if (limit < 1) return unchangedDelicm(m, `${byShare} is empty: the SCoP keeps its plain model`, before);
  // After any mapping DeLICM recomputes the SCoP's dependences, and its knowledge and exactness checks cost
  // more than they do (1.6-14x on our kernels): a SCoP whose dependences took over half of the limit would
  // spend it all for nothing (robustness seeds 22 and 29, -O3's unrolled nests: 5-9M operations each).
  const dependences = m.budget.steps.get('dependences')?.operations ?? 0;
  if (before > 0 && dependences > limit / 2) {
    const by = limit === own ? `DeLICM's isl quota (--delicm-max-operations=${own})` : byShare;
    return unchangedDelicm(m, `not tried: the SCoP's dependences cost ${dependences} isl operations, over half of ${by}, and DeLICM recomputes them: the SCoP keeps its plain model`, before);
  }
  const r = m.budget.run(m.ctx, 'delicm', limit, () => runDelicm(m, { maxOperations: limit, scalarWritesBefore: before, onlyLocations }));
  if (r.unchanged === undefined) return r;
  const by = limit === own ? `DeLICM's isl quota (--delicm-max-operations=${own})` : byShare;
  return { ...r, unchanged: `${by} ran out (${r.unchanged}): the SCoP keeps its plain model` };
}

/**
 * DeLICM on one model, under the options the pipeline gives (versioning asks for it when an
 * interchange needs it); `onlyLocations`: the scalars it may map (default all). With `reuse`
 * (--schedule-shortcuts), a full mapping made before for the same model is given again: the
 * time-tiling probe, the tiling probe and the interchange each ask.
 */
export function delicmFor(ctx: PassContext, model: ScopModel, reuse = false, onlyLocations?: ReadonlySet<string>): DelicmScopResult {
  const cacheable = reuse && onlyLocations === undefined;
  const made = cacheable ? delicmResults.get(model) : undefined;
  if (made) return made;
  const r = delicmWithinBudget(model, delicmMaxOperationsFrom(ctx), onlyLocations);
  if (cacheable) delicmResults.set(model, r);
  return r;
}
const delicmResults = new WeakMap<ScopModel, DelicmScopResult>();

/** `--delicm-max-operations`, parsed for the pass and for the report alike. */
export function delicmMaxOperationsFrom(ctx: Pick<PassContext, 'options'>): number {
  return nonNegativeIntegerOption(ctx, delicmMaxOperationsOption, defaultDelicmMaxOperations);
}

function analysisFrom(ctx: PassContext): AnalysisKey<FunctionDelicm> {
  return delicmAnalysisFor(modelAnalysisFrom(ctx), delicmMaxOperationsFrom(ctx));
}

function count(ctx: PassContext, name: string, n: number): void {
  ctx.stats.set(name, (ctx.stats.get(name) ?? 0) + n);
}

export const delicmPass: ModulePass = {
  name: 'delicm',
  description: 'DeLICM: map scalars and PHIs onto array elements whose content is not needed meanwhile, removing scalar dependences; a later versioning generates its fast path from the result (--passes=delicm,versioning) unless a pass in between changed the IR',
  options: [maxOperationsOption, scopMaxOperationsOption, delicmMaxOperationsOption],
  run(module: Module, ctx: PassContext) {
    const analysis = analysisFrom(ctx);
    for (const fn of module.functions) {
      if (fn.isDeclaration) continue;
      for (const r of ctx.am.get(appliedKey(analysis), fn).scops) {
        // The host prefixes the pass's name: `delicm.mapped-scalars`.
        count(ctx, 'mapped-scalars', r.counters.mappedScalars);
        count(ctx, 'mapped-phis', r.counters.mappedPhis);
        count(ctx, 'forwards', r.counters.forwards);
        count(ctx, 'reloads', r.counters.reloads);
        count(ctx, 'scalar-writes-removed', r.counters.scalarWritesBefore - r.counters.scalarWritesAfter);
        if (r.rejections.length > 0) ctx.log.debug({ function: fn.name, scop: r.original.location, rejections: r.rejections }, 'DeLICM refused mappings');
        if (r.unchanged) ctx.remarks.push({ pass: 'delicm', kind: 'missed', function: fn.name, location: r.original.location, message: r.unchanged });
        else if (r.mappings.length > 0) {
          const what = r.mappings.map((m) => `${m.location} -> ${m.target}`).join(', ');
          ctx.remarks.push({ pass: 'delicm', kind: 'applied', function: fn.name, location: r.original.location, message: `mapped ${what}` });
        }
      }
    }
    return 'all';
  },
};

/** What `print<delicm>` shows for one SCoP: counters, mappings, the transformed accesses and dependences. */
export function printDelicm(r: DelicmScopResult): string {
  const c = r.counters;
  const lines = [
    `  DeLICM at ${r.original.location}: forwards ${c.forwards}, reloads ${c.reloads}, mapped scalars ${c.mappedScalars}, mapped PHIs ${c.mappedPhis}, scalar writes in loops ${c.scalarWritesBefore} -> ${c.scalarWritesAfter}`,
  ];
  if (r.unchanged) lines.push(`    unchanged: ${r.unchanged}`);
  for (const m of r.mappings) lines.push(`    Mapped ${m.kind === 'phi' ? 'PHI' : 'scalar'} ${m.location} -> ${m.target}`);
  for (const [statement, tree] of r.forwardedTrees) lines.push(`    Forwarded into ${statement}: ${tree.map((i) => printInstruction(i).trim()).join('; ')}`);
  lines.push(printScopModel(r.model), printDependences(r.model));
  return lines.join('\n');
}

export const printDelicmPass: ModulePass = {
  name: 'print<delicm>',
  description: 'print what DeLICM did to each SCoP: counters, mappings, the transformed model and its dependences',
  options: [maxOperationsOption, scopMaxOperationsOption, delicmMaxOperationsOption],
  run(module: Module, ctx: PassContext) {
    const analysis = analysisFrom(ctx);
    for (const fn of module.functions) {
      if (fn.isDeclaration) continue;
      const lines = [`Function: ${fn.name}`];
      const scops = ctx.am.get(analysis, fn).scops;
      if (scops.length === 0) lines.push('  (no SCoPs)');
      for (const r of scops) lines.push(printDelicm(r));
      process.stderr.write(lines.join('\n') + '\n');
    }
    return 'all';
  },
};

export const delicmPasses: ModulePass[] = [delicmPass, printDelicmPass];

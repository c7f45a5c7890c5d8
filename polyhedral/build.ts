// Building the polyhedral model of a SCoP from SCoP detection's result (Polly's
// ScopBuilder): domains, schedule, access relations, parameters, context and
// assumptions, then the dependences.
//
// The model is written as isl text first (`describe.ts`: every expression goes
// through `ScevTranslator`) and read by isl once, with all parameters known; then
// isl does the set arithmetic (`assumptions.ts`, `dependences.ts`) under an
// operations quota.
import { type Ctx, IslError, IslQuotaError } from 'isl-wasm';
import type { IrFunction, Module } from '../ir';
import type { Scop, ScopRejection } from '../analysis/scop-detection-types';
import type { Scev } from '../analysis/scev';
import { NonAffineError } from './affine';
import { computeAssumptions } from './assumptions';
import { type Delinearizer, type EntryFacts, type ScopText, ModelError, describeScop } from './describe';
import { computeDependences } from './dependences';
import type { ScopAccess, ScopModel, ScopStatementModel } from './model';
import { ScopBudget, defaultScopMaxOperations } from './budget';
import type { ModuleBudget } from './module-budget';
import { scheduleTree, timeMap } from './schedule';
import { emptyUnionMapIn, emptyUnionSetIn } from './relations';

export type { ArrayShape, Delinearizer, EntryFacts } from './describe';
export { ModelError } from './describe';
export { setToC } from './assumptions';

export interface ModelOptions {
  /** isl operations allowed per SCoP for the model and its dependences; past it the SCoP is dropped. */
  readonly maxOperations: number;
  /** isl operations per SCoP over every step, model to AST (`ScopBudget`); default `defaultScopMaxOperations`, 0 = no limit. */
  readonly scopMaxOperations?: number;
  readonly delinearize?: Delinearizer;
  /** false: model each block as one statement, undoing detection's statement splitting (analysis/statement-split.ts; default true). */
  readonly splitStatements?: boolean;
  /** The budget of the whole module (module-budget.ts): each SCoP's budget is capped by what it has left. */
  readonly moduleBudget?: ModuleBudget;
  /**
   * Whether the run-time check can compute the parameters' expressions at the SCoP's entry
   * (analysis/outer-iteration.ts's `parametersExpandable`); a SCoP whose model cannot be
   * versioned for that is rejected before isl reads it.
   */
  readonly expandable?: (expressions: readonly Scev[]) => boolean;
}

/** Why a SCoP is rejected when `expandable` says no (codegen/scev-expander.ts's words for it). */
export const UNEXPANDABLE_PARAMETER = "a varying expression used as a parameter: the run-time check could not compute it at the SCoP's entry";

/**
 * isl operations per SCoP (model, assumptions, dependences). Our largest test kernels
 * (covariance and 2mm at -O3, up to 20 statements from unrolled loops) need between
 * 2 and 5 million, a few seconds; a SCoP needing more than 10 million is not worth
 * the compile time.
 */
export const defaultMaxOperations = 10_000_000;

/** Builds the model of `scop`, or returns why not (quota, non-affine expression). */
export function buildScopModel(
  ctx: Ctx, module: Module, fn: IrFunction, scop: Scop, options: ModelOptions, entryFacts: EntryFacts = new Map(),
  budget = new ScopBudget(options.scopMaxOperations ?? defaultScopMaxOperations),
): ScopModel | ScopRejection {
  const reject = (cause: ScopRejection['cause'], detail: string): ScopRejection => ({ cause, location: scop.location, detail, entry: scop.entry, exit: scop.exit });
  const describe = (readCasts: boolean): ScopText => describeScop(module, fn, scop, { ...options, readCasts }, entryFacts);
  const build = (readCasts: boolean): ScopModel => {
    const text = describe(readCasts);
    // A parameter the run-time check cannot compute: versioning would refuse the SCoP after the
    // model, the check and the AST. Refused before isl reads the text, unless the model without
    // casts (built when the one with them contradicts itself) could be versioned.
    if (options.expandable && readCasts && !options.expandable(text.parameters.map((x) => x.expression)) && !options.expandable(describe(false).parameters.map((x) => x.expression))) {
      throw new ModelError('other', UNEXPANDABLE_PARAMETER);
    }
    // Delinearization (in describeScop) spends from the budget first; used up, the model would only fail.
    if (budget.exhaustedBy) throw new BudgetUsedUp();
    const model = budget.run(ctx, 'model', options.maxOperations, () => ctx.scope(() => materialize(ctx, fn, scop, text, budget, options.maxOperations)));
    // The schedule tree: schedule-node operations linear in the statements, on objects already
    // built, and not charged to a step (the steps' counts say what modelling and its set arithmetic cost).
    return { ...model, scheduleTree: ctx.scope(() => scheduleTree(text.scheduleShape, model.domains, model.statements).keep()) };
  };
  try {
    let model: ScopModel;
    try {
      model = build(true);
    } catch (e) {
      // Casts read through whose no-wrap condition never holds: the arrays stay linear.
      if (!(e instanceof CastsContradiction)) throw e;
      model = build(false);
    }
    // A step may swallow its quota error and give a weaker result (delinearization does).
    if (budget.exhaustedBy) return reject('other', budget.reason());
    return model;
  } catch (e) {
    if (e instanceof BudgetUsedUp || (e instanceof IslError && budget.exhaustedBy)) return reject('other', budget.reason());
    if (e instanceof IslQuotaError) return reject('other', `isl operations quota (${options.maxOperations}) exceeded while modelling the SCoP`);
    // Past the quota some isl functions fail with a different error (the parser says
    // "syntax error"): under a quota, any isl failure drops the SCoP with isl's words.
    if (e instanceof IslError && options.maxOperations > 0) {
      return reject('other', `isl operations quota (${options.maxOperations}) exceeded while modelling the SCoP (isl: ${e.message})`);
    }
    if (e instanceof NonAffineError) return reject('non-affine-loop-bound', e.message);
    if (e instanceof ModelError) return reject(e.rejectionCause, e.message);
    throw e;
  }
}

/** The SCoP's budget ran out before the model's step began. */
class BudgetUsedUp extends Error {}

/** The model read casts through and its assumptions never hold: build it again without. */
class CastsContradiction extends Error {}

/** Phase two: isl reads the text, computes assumptions and dependences. */
function materialize(ctx: Ctx, fn: IrFunction, scop: Scop, t: ScopText, budget: ScopBudget, maxOperations: number): Omit<ScopModel, 'scheduleTree'> {
  const p = t.paramPrefix;
  // [params] -> { : ranges of the parameters' types, and what the guards before the SCoP say }
  const context = ctx.set(t.context);
  const statements: ScopStatementModel[] = t.statements.map((s) => {
    // [params] -> { Stmt_S[i..] : ... }
    const domain = ctx.set(p + s.domain).coalesce();
    // [params] -> { Stmt_S[i..] -> [t..] }
    const schedule = timeMap(domain, s.schedule);
    const accesses: ScopAccess[] = s.accesses.map((a) => ({
      kind: a.kind,
      certainty: a.certainty,
      array: a.array,
      instruction: a.instruction,
      scalar: a.scalar,
      // [params] -> { Stmt_S[i..] -> MemRef_A[o..] }
      relation: ctx.map(p + a.relation).coalesce(),
      approximation: a.approximation,
    }));
    return { name: s.name, block: s.source.block, loops: s.source.loops, domain, schedule, accesses, ...(s.source.instructions ? { instructions: s.source.instructions } : {}) };
  });

  // [params] -> { Stmt[..] } for every statement
  // Empty, with the parameters in their order
  const none = emptyUnionMapIn(context.getSpace());
  let domains = emptyUnionSetIn(context.getSpace());
  let schedule = none;
  let reads = none;
  let mustWrites = none;
  let mayWrites = none;
  for (const s of statements) {
    domains = domains.union(s.domain.toUnionSet());
    schedule = schedule.union(s.schedule.toUnionMap());
    for (const a of s.accesses) {
      // [params] -> { Stmt_S[..] -> MemRef[..] } restricted to where S runs
      const r = a.relation.intersectDomain(s.domain).toUnionMap();
      if (a.kind === 'read') reads = reads.union(r);
      else if (a.certainty === 'must') mustWrites = mustWrites.union(r);
      else mayWrites = mayWrites.union(r);
    }
  }

  const assumptions = computeAssumptions(ctx, t, context, statements);
  // [params] -> { : context and every assumption }
  let assumedContext = context;
  for (const a of assumptions) assumedContext = assumedContext.intersect(a.set);
  // Only where nothing runs (the statements' domains are empty under the assumptions): a contradiction.
  if (t.readsCasts && domains.intersectParams(assumedContext).isEmpty()) throw new CastsContradiction();

  const dependences = budget.run(ctx, 'dependences', 0, () => computeDependences(ctx, {
    statements,
    loops: scop.loops,
    schedule,
    assumedContext,
    // The exact relations, computed when first read (the schedule optimizer, printers): a step of
    // the SCoP's budget of its own, under the model's quota; not part of modelling the SCoP.
    later: (exact) => budget.run(ctx, 'dataflow', maxOperations, exact),
  }));

  const model: Omit<ScopModel, 'scheduleTree'> = {
    function: fn,
    scop,
    location: scop.location,
    depth: scop.depth,
    parameters: t.parameters,
    context,
    statements,
    arrays: t.arrays,
    loops: scop.loops,
    loopLabels: t.loopLabels,
    domains,
    schedule,
    reads,
    mustWrites,
    mayWrites,
    assumptions,
    assumedContext,
    dependences,
    ctx,
    budget,
  };
  keepAll(model);
  return model;
}

/** Moves every isl object of the model to the context's root scope. */
function keepAll(model: Omit<ScopModel, 'scheduleTree'>): void {
  const keep = (o: { keep(): unknown }): void => void o.keep();
  [model.context, model.domains, model.schedule, model.reads, model.mustWrites, model.mayWrites, model.assumedContext].forEach(keep);
  for (const s of model.statements) {
    keep(s.domain);
    keep(s.schedule);
    s.accesses.forEach((a) => keep(a.relation));
  }
  model.assumptions.forEach((a) => keep(a.set));
  // The dependences keep their own objects (some are computed only when first read).
}

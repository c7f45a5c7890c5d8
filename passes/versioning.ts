// `versioning`: every SCoP becomes `if (run-time check) fast path else original` (the rewrite:
// codegen/versioning.ts). This shell reads the options, picks each SCoP's model (the plain one,
// or DeLICM's after the delicm pass or for an interchange: scop-sources.ts), asks for the
// interchange plan and the schedule optimizer's decision, versions the SCoPs of each function in
// CFG order, models anew the SCoPs an earlier SCoP's versioning made stale, and reports.
// A SCoP is left as it was, with a `missed` remark and a `notVersioned` report field saying
// why, when: isl exceeds its operations quota; the check would compare too many pairs or an
// accessed range has no bound; a value computed in the SCoP is used after it without a write
// the model knows; the statements hold code the generator cannot copy.
import * as os from 'node:os';
import { successors, type BasicBlock, type IrFunction, type Module } from '../ir';
import { TsoptError } from '../ir/errors';
import { scalarEvolutionAnalysis } from '../analysis/scalar-evolution';
import { scopDetectionAnalysis } from '../analysis/scop-detection';
import { islSpending } from '../polyhedral/budget';
import type { FunctionScopModels, ScopModel } from '../polyhedral/model';
import { checkPartsAnalysis, type CheckedParts } from '../polyhedral/check-parts';
import { NotVersioned, versionScop, type VersionedScop, type VersioningHooks, type VersioningOptions } from '../codegen/versioning';
import { StaleModelError } from '../codegen/dominance';
import { RtcStats } from '../codegen/check-stats';
import { delicmMaxOperationsOption } from './delicm';
import { interchangePlansFor, scopSources, type ScopSource } from './scop-sources';
import type { AnalysisKey, ModulePass, PassContext, PassOption } from './pass';
import { booleanOption, nonNegativeIntegerOption } from './pass';
import { maxOperationsOption, modelAnalysisFrom, scopMaxOperationsOption, splitStatementsOption } from './scop-passes';
import { moduleBudgetOptions } from './module-budget-options';
import { parallelOption } from './parallel-option';
import { inlineCheckedAccessorsOption } from './checked-accessors';
import { scheduleDecision, scheduleOptions, scheduleReport, scheduleSettingsFrom, type ScheduleSettings } from './schedule';

export const rtcStatsOption: PassOption = {
  name: 'rtc-stats',
  description: 'make the program count, per SCoP, fast and slow runs and which check part failed, printed at exit to stderr (or to the file $TSOPT_RTC_STATS)',
};
export const maxAliasPairsOption: PassOption = {
  name: 'rtc-max-alias-pairs',
  description: 'at most this many pairs of arrays compared in one run-time check; a SCoP needing more keeps no fast path (default 32)',
};
export const rerollOption: PassOption = {
  name: 'reroll',
  description: 'generate the fast path of a loop -O3 runtime-unrolled as the rolled loop over its whole range (default true; --reroll=false keeps the unrolled copies)',
};
export const interchangeOption: PassOption = {
  name: 'interchange',
  description: 'run a column walk\'s outer loop innermost in the fast path when that is legal and every access then moves by one element or none (transform/interchange.ts; default true); a nest that only scalars keep in order is generated from DeLICM\'s model',
};
export const rtcCheckFunctionsOption: PassOption = {
  name: 'rtc-check-functions',
  description: 'compute each run-time check in a noinline function of its own (tsopt.check.<function>.scopN), so what the check executes can be counted in the final code (bench/check-cost.ts); costs a call per check',
};
export const rtcNestedCheckFunctionsOption: PassOption = {
  name: 'rtc-nested-check-functions',
  description: 'compute the run-time check of a SCoP inside a loop it does not cover in a noinline function of its own, so opt\'s LICM does not hoist its parts out of that loop where they hold registers across it (default true; --rtc-nested-check-functions=false keeps it inline)',
};
export const ompPrivatizeOption: PassOption = {
  name: 'omp-privatize',
  description: 'with --parallel, also run outermost loops that carry dependences only on arrays each iteration writes before reading, each thread with its own copy (codegen/privatize.ts; default true; --omp-privatize=false: only loops that carry nothing)',
};
export const ompDynamicOption: PassOption = {
  name: 'omp-dynamic',
  description: 'with --parallel, a parallel loop whose iterations change from run to run and differ in work (a wavefront of time tiles, a triangle\'s rows in a block of rows) claims its iterations one at a time (an atomic counter) instead of a static zigzag (default true)',
};
export const ompTileSyncOption: PassOption = {
  name: 'omp-tile-sync',
  description: 'with --parallel, how time tiles run in wavefronts wait for each other: point (one team for all the wavefronts, each column of tiles claimed in wavefront order and started as soon as the columns the dependences name are done; codegen/ast-to-ir.ts, generatePointSync) or barrier (a team per wavefront) (default point)',
};
export const ompBlockInterchangedOption: PassOption = {
  name: 'omp-block-interchanged',
  description: 'with --parallel, run an interchanged nest whose outer loop carries nothing in blocks of 64 of that loop, the blocks on the threads (transform/interchange.ts, blockOuterLoops; constant sizes, inside loops that carry a dependence; default false: on one thread its blocks cost PolyBench gramschmidt 29% more instructions)',
};
export const ompColumnRangesOption: PassOption = {
  name: 'omp-column-ranges',
  description: 'with --parallel, an interchanged nest whose outer loop carries nothing, inside loops that all carry a dependence, runs that loop\'s values in one range per thread sized at run time, each thread\'s walks clipped to its range (codegen/column-ranges.ts; default true; --omp-block-interchanged takes its nests first)',
};
export const parallelBalanceThreadsOption: PassOption = {
  name: 'parallel-balance-threads',
  description: 'with --parallel, the threads a parallel loop with unequal or few iterations is counted for: where its share leaves the busiest thread more statement instances than the parallel loops inside it would (constant sizes; a triangle\'s blocks of rows), those run on the threads instead (codegen/parallel-balance.ts; default: this machine\'s CPUs; 1: not counted)',
};
export const parallelMinWorkOption: PassOption = {
  name: 'parallel-min-work',
  description: 'statement instances per thread (estimated at run time from the iteration domains) below which a parallel loop runs serially (default 100000)',
};
export const codegenMaxOperationsOption: PassOption = {
  name: 'codegen-max-operations',
  description: 'isl operations allowed per SCoP for the check and the AST, a step of --scop-max-operations (default 1000000, once per matrix product for the matmul path at constant sizes; 0 = no limit)',
};

/** --omp-tile-sync: point (the default) or barrier. */
function tileSyncFrom(ctx: PassContext): 'point' | 'barrier' {
  const raw = ctx.options.get(ompTileSyncOption.name);
  if (raw === undefined || raw === 'point') return 'point';
  if (raw === 'barrier') return 'barrier';
  throw new TsoptError(`--${ompTileSyncOption.name} wants point or barrier, not '${raw}'`);
}

/** --codegen-max-operations (versioning and `print<interchange>` read it alike). */
export function codegenMaxOperationsFrom(ctx: PassContext): number {
  return nonNegativeIntegerOption(ctx, codegenMaxOperationsOption, 1_000_000);
}

/** The rewrite's options, and what the shell decides with. */
interface PassOptions extends VersioningOptions {
  readonly interchange: boolean;
  /** The schedule optimizer's settings; undefined with --schedule=false. */
  readonly schedule: ScheduleSettings | undefined;
  /** A model's check parts, made once (scop-sources.ts asks for the plain model's before its probes). */
  readonly checkParts: (model: ScopModel) => CheckedParts;
}

/** The plans the rewrite asks for, made by this pass's analyses, and its log. */
function hooksFor(ctx: PassContext, o: PassOptions): VersioningHooks {
  return {
    plans(model) {
      const interchange = o.interchange && !model.budget.exhaustedBy ? interchangePlansFor(ctx, model, o.maxOperations).planFor(model) : undefined;
      if (model.budget.exhaustedBy) throw new NotVersioned(model.budget.reason());
      return { interchange, decision: o.schedule ? scheduleDecision(model, interchange, o.schedule) : undefined };
    },
    checkParts: o.checkParts,
    genericPlan: (model, interchange) => (o.schedule ? scheduleDecision(model, interchange, { ...o.schedule, matmulParametric: false }) : undefined),
    debug: (fields, message) => ctx.log.debug(fields, message),
  };
}

/**
 * The SCoPs in reverse post-order of their entries. Versioning a SCoP rewires the edges into its
 * entry and out of its region; when one SCoP's exit is the next one's entry, the earlier one must
 * go first: its exit edges then lead to the later one's entry, which that SCoP's wiring handles
 * as any outside predecessor, whereas the other order would leave the earlier SCoP's model naming
 * an exit its region no longer branches to (robustness seed 4: a PHI missing an incoming block).
 */
function inCfgOrder(fn: IrFunction, sources: readonly ScopSource[]): ScopSource[] {
  const order = new Map<BasicBlock, number>();
  const seen = new Set<BasicBlock>();
  const post: BasicBlock[] = [];
  const entry = fn.blocks[0];
  if (entry) {
    // Iterative depth-first search: functions from csmith have thousands of blocks.
    const stack: [BasicBlock, BasicBlock[]][] = [[entry, successors(entry)]];
    seen.add(entry);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const next = top[1].shift();
      if (next === undefined) {
        post.push(top[0]);
        stack.pop();
      } else if (!seen.has(next)) {
        seen.add(next);
        stack.push([next, successors(next)]);
      }
    }
  }
  post.reverse().forEach((b, k) => order.set(b, k));
  const at = (s: ScopSource) => order.get(s.model.scop.entry) ?? Number.MAX_SAFE_INTEGER;
  return [...sources].sort((a, b) => at(a) - at(b));
}

/**
 * `pending`'s SCoPs modelled anew on `fn` as it is now, after its analyses are dropped: those
 * whose entry the new detection finds again (the new fast paths and the regions already
 * versioned are not among them), and those it no longer finds.
 */
function rebuildPending(ctx: PassContext, fn: IrFunction, analysis: AnalysisKey<FunctionScopModels>, o: PassOptions, pending: readonly ScopSource[]): { fresh: ScopSource[]; lost: ScopSource[] } {
  const entries = new Set(pending.map((s) => s.model.scop.entry));
  ctx.am.invalidate(fn, 'none');
  const fresh = inCfgOrder(fn, scopSources(ctx, fn, analysis, o, (m) => entries.has(m.scop.entry)));
  const found = new Set(fresh.map((s) => s.model.scop.entry));
  return { fresh, lost: pending.filter((s) => !found.has(s.model.scop.entry)) };
}

/** Reports a SCoP left as it was, and why. */
function notVersioned(ctx: PassContext, fn: IrFunction, location: string, why: string, spending: Record<string, unknown>): void {
  ctx.stats.set('not-versioned', (ctx.stats.get('not-versioned') ?? 0) + 1);
  ctx.scopResults.push({ pass: 'versioning', function: fn.name, location, fields: { versioned: false, notVersioned: why, ...spending } });
  ctx.remarks.push({ pass: 'versioning', kind: 'missed', function: fn.name, location, message: `SCoP left as it was: ${why}` });
}

/**
 * When the module budget's transforming steps are used up before `fn`, its SCoPs (as detection
 * finds them) are reported as left as they were, without being modelled: how many. Each takes a
 * SCoP number, as every SCoP versioning reports on does.
 */
function leftByModuleBudget(ctx: PassContext, fn: IrFunction): number | undefined {
  if (!ctx.moduleBudget) return undefined;
  const detected = () => ctx.am.get(scopDetectionAnalysis, fn).scops;
  const why = ctx.moduleBudget.untransformed(fn, () => detected().length);
  if (why === undefined) return undefined;
  const scops = detected();
  for (const scop of scops) notVersioned(ctx, fn, scop.location, why, {});
  return scops.length;
}

export const versioningPass: ModulePass = {
  name: 'versioning',
  description: 'run-time checked fast paths: each SCoP becomes if (alias, delinearization and assumption checks) code generated from its model, else the original; after delicm (--passes=delicm,versioning) from DeLICM\'s transformed model, mapped scalars in array elements',
  options: [
    maxOperationsOption, scopMaxOperationsOption, splitStatementsOption, codegenMaxOperationsOption, maxAliasPairsOption, rtcStatsOption, rtcCheckFunctionsOption, rtcNestedCheckFunctionsOption, rerollOption, interchangeOption, delicmMaxOperationsOption,
    parallelOption, parallelMinWorkOption, parallelBalanceThreadsOption, ompPrivatizeOption, ompDynamicOption, ompTileSyncOption, ompBlockInterchangedOption, ompColumnRangesOption, ...moduleBudgetOptions, ...scheduleOptions, inlineCheckedAccessorsOption,
  ],
  run(module: Module, ctx: PassContext) {
    const analysis = modelAnalysisFrom(ctx);
    const wantStats = booleanOption(ctx, rtcStatsOption, false);
    const maxOperations = codegenMaxOperationsFrom(ctx);
    const maxAliasPairs = nonNegativeIntegerOption(ctx, maxAliasPairsOption, 32);
    const checks = checkPartsAnalysis(analysis, { maxOperations, maxAliasPairs });
    const o: PassOptions = {
      maxOperations,
      maxAliasPairs,
      checkParts: (model) => ctx.am.get(checks, model.function).partsFor(model),
      stats: wantStats ? new RtcStats(module) : undefined,
      reroll: booleanOption(ctx, rerollOption, true),
      checkFunctions: booleanOption(ctx, rtcCheckFunctionsOption, false),
      nestedCheckFunctions: booleanOption(ctx, rtcNestedCheckFunctionsOption, true),
      interchange: booleanOption(ctx, interchangeOption, true),
      parallel: booleanOption(ctx, parallelOption, false),
      parallelMinWork: nonNegativeIntegerOption(ctx, parallelMinWorkOption, 100_000),
      privatize: booleanOption(ctx, ompPrivatizeOption, true),
      dynamic: booleanOption(ctx, ompDynamicOption, true),
      tileSync: tileSyncFrom(ctx),
      blockInterchanged: booleanOption(ctx, ompBlockInterchangedOption, false),
      columnRanges: booleanOption(ctx, ompColumnRangesOption, true),
      parallelBalanceThreads: nonNegativeIntegerOption(ctx, parallelBalanceThreadsOption, os.availableParallelism()),
      schedule: scheduleSettingsFrom(ctx, module),
    };
    const hooks = hooksFor(ctx, o);
    let index = 0;
    let changed = false;
    const functions = module.functions.filter((f) => !f.isDeclaration);
    for (const fn of functions) {
      const left = leftByModuleBudget(ctx, fn);
      if (left !== undefined) {
        index += left;
        ctx.am.invalidate(fn, 'none');
        continue;
      }
      let se = ctx.am.get(scalarEvolutionAnalysis, fn);
      let pending = inCfgOrder(fn, scopSources(ctx, fn, analysis, o));
      // Reports name a SCoP by its location in the input: a model rebuilt on the changed IR keeps it.
      const inputLocation = new Map(pending.map((s) => [s.model.scop.entry, s.model.location] as const));
      // Entries of the SCoPs modelled anew since the last SCoP was versioned: a model built on the
      // IR as it is cannot go stale again before the IR changes, so a second rebuild would not help.
      const rebuilt = new Set<BasicBlock>();
      let k = index;
      while (pending.length > 0) {
        const chosen = pending[0]!;
        let source = chosen;
        const { model } = source;
        const location = inputLocation.get(model.scop.entry) ?? model.location;
        try {
          let v: VersionedScop;
          try {
            v = versionScop(module, fn, source.model, source.original, location, se, k, o, hooks);
            if (source.delicmNotTaken) v = { ...v, interchangeRefused: [...v.interchangeRefused, `DeLICM's model not taken: ${source.delicmNotTaken}`] };
          } catch (e) {
            if (!(e instanceof NotVersioned) || !chosen.fallback) throw e;
            ctx.log.debug({ function: fn.name, scop: location, why: e.message }, 'no fast path from DeLICM\'s model: from the plain model');
            source = chosen.fallback;
            v = versionScop(module, fn, source.model, source.original, location, se, k, o, hooks);
            v = { ...v, interchangeRefused: [...v.interchangeRefused, `DeLICM's model not taken: it keeps no fast path (${e.message})`] };
          }
          changed = true;
          rebuilt.clear();
          ctx.stats.set('versioned', (ctx.stats.get('versioned') ?? 0) + 1);
          ctx.scopResults.push({
            pass: 'versioning', function: fn.name, location,
            fields: {
              versioned: true, runtimeCheck: v.runtimeCheck, runtimeCheckParts: v.parts, codeGrowth: v.codeGrowth, fastPathParallelLoops: v.parallelLoops, rerolledLoops: v.rerolledLoops, ...(o.parallel ? { ompParallelLoops: v.ompLoops.filter((l) => !l.why).map((l) => l.loop), ompSchedules: v.ompLoops.filter((l) => !l.why).map((l) => l.share), ompSerialLoops: v.ompLoops.filter((l) => l.why).map((l) => `${l.loop}: ${l.why}`), ...privatizedReport(v.ompLoops), ...tileSyncReport(v.ompLoops), ...(v.oneThreadOrder ? { ompOneThreadOrder: v.oneThreadOrder } : {}) } : {}),
              interchangedLoops: v.interchanged, ...(v.interchangeRefused.length > 0 ? { interchangeRefused: v.interchangeRefused } : {}), ...(v.schedule ? { schedule: scheduleReport(v.schedule.decision, v.schedule.used, v.schedule.notUsed) } : {}), fastPathFrom: source.from, ...(source.delicmMappedOnly ? { delicmMappedOnly: source.delicmMappedOnly } : {}), ...splitReport(source.model), ...islSpending(model),
            },
          });
          ctx.remarks.push({
            pass: 'versioning', kind: 'applied', function: fn.name, location,
            message: `fast path under run-time check: ${v.runtimeCheck}; parts: ${v.parts.map((p) => (p.tests ? `${p.label} by ${p.tests.join(' or ')}` : p.label)).join(', ') || '(none)'}; code growth: ${v.codeGrowth} instructions; parallel loops: ${v.parallelLoops}`,
          });
        } catch (e) {
          if (e instanceof StaleModelError && !rebuilt.has(model.scop.entry)) {
            // The IR changed under this model (an earlier SCoP of fn was versioned): the function's
            // analyses are computed anew on the IR as it is now, for this SCoP and those after it.
            ctx.log.debug({ function: fn.name, scop: location, why: e.message }, 'model stale after an earlier SCoP\'s versioning: rebuilt');
            for (const s of pending) rebuilt.add(s.model.scop.entry);
            const { fresh, lost } = rebuildPending(ctx, fn, analysis, o, pending);
            // Profitability finds each SCoP's result by its index: a lost SCoP still takes one.
            for (const gone of lost) {
              notVersioned(ctx, fn, inputLocation.get(gone.model.scop.entry) ?? gone.model.location, 'after an earlier SCoP of its function was versioned, it is no longer detected as a SCoP', {});
              k++;
            }
            pending = fresh;
            se = ctx.am.get(scalarEvolutionAnalysis, fn);
            continue;
          }
          const why = e instanceof StaleModelError ? `${e.message}, even with its model rebuilt` : e instanceof NotVersioned ? e.message : undefined;
          if (why === undefined) throw e;
          notVersioned(ctx, fn, location, why, islSpending(model));
        }
        pending = pending.slice(1);
        k++;
      }
      index = k;
      // Memory stays proportional to one function: its models (an isl context) are freed once it is done.
      ctx.am.invalidate(fn, 'none');
    }
    o.stats?.finish();
    return changed || o.stats ? 'none' : 'all';
  },
};

/** `ompPrivatized`: the arrays each thread of a parallel loop keeps a copy of (codegen/privatize.ts), as `array in loop`; absent when none. */
function privatizedReport(loops: readonly { readonly loop: string; readonly why?: string; readonly privatized?: readonly string[] }[]): { ompPrivatized?: string[] } {
  const out = loops.filter((l) => !l.why).flatMap((l) => (l.privatized ?? []).map((a) => `${a} in ${l.loop}`));
  return out.length > 0 ? { ompPrivatized: out } : {};
}

/** `ompTileSync`: how each band of wavefronts on the threads waits between its columns (codegen/ast-to-ir.ts, generatePointSync); absent when none is point-synchronised. */
function tileSyncReport(loops: readonly { readonly loop: string; readonly why?: string; readonly sync?: string }[]): { ompTileSync?: string[] } {
  const out = loops.filter((l) => !l.why && l.sync).map((l) => `${l.loop}: ${l.sync!}`);
  return out.length > 0 ? { ompTileSync: out } : {};
}

/** `splitStatements`: the statements that are one part of their block (analysis/statement-split.ts) with their innermost loop, `Stmt_43_b (in loop %43)`; absent when none. */
function splitReport(model: ScopModel): { splitStatements?: string[] } {
  const parts = model.statements.filter((st) => st.instructions !== undefined);
  return parts.length === 0 ? {} : { splitStatements: parts.map((st) => `${st.name} (in loop ${st.loops.length === 0 ? 'none' : model.loopLabels.get(st.loops[st.loops.length - 1]!) ?? '?'})`) };
}

// The polyhedral model as a function analysis: built on demand from SCoP
// detection's result, cached by the analysis manager like any other analysis.
import { Ctx } from 'isl-wasm';
import type { IrFunction } from '../ir';
import type { AnalysisKey, FunctionAnalysisManager } from '../analysis/analysis-manager';
import type { ScopRejection } from '../analysis/scop-detection-types';
import { scopDetectionAnalysis } from '../analysis/scop-detection';
import { scalarEvolutionAnalysis } from '../analysis/scalar-evolution';
import { unsplitScop } from '../analysis/statement-split';
import { parametersExpandable } from '../analysis/outer-iteration';
import type { Scev } from '../analysis/scev';
import { type Delinearizer, type ModelOptions, buildScopModel, defaultMaxOperations } from './build';
import { ScopBudget, defaultScopMaxOperations } from './budget';
import { sharedDelinearizer } from './delinearization/analysis';
import type { FunctionScopModels, ScopModel } from './model';

/** Builds the models of every SCoP detection found in `fn`. */
export function buildFunctionModels(fn: IrFunction, am: FunctionAnalysisManager, options: ModelOptions): FunctionScopModels {
  const detection = am.get(scopDetectionAnalysis, fn);
  const rejections: ScopRejection[] = [...detection.rejections];
  const admitted = options.moduleBudget?.admit(fn, detection.scops.length);
  if (admitted && 'untouched' in admitted) {
    // Past the module's budget nothing more is modelled: the SCoPs stay as they are, and say why.
    const detail = admitted.untouched;
    for (const scop of detection.scops) rejections.push({ cause: 'other', location: scop.location, detail, entry: scop.entry, exit: scop.exit });
    return { function: fn, models: [], rejections, dispose: () => undefined };
  }
  const se = am.get(scalarEvolutionAnalysis, fn);
  const ctx = new Ctx();
  const models: ScopModel[] = [];
  const hook = options.delinearize;
  for (const found of detection.scops) {
    const scop = options.splitStatements === false ? unsplitScop(found) : found;
    // One budget per SCoP, carried by its model to DeLICM and versioning.
    const scopLimit = options.scopMaxOperations ?? defaultScopMaxOperations;
    const budget = admitted ? admitted.budget(scopLimit) : new ScopBudget(scopLimit);
    // Delinearization spends from the budget (under what remains of it, or charged from the
    // shared cache); once per SCoP, though the model may be described twice (with and without casts).
    let shapes: ReturnType<Delinearizer> | undefined;
    // Detection's SCoP (its cached delinearization): the whole blocks touch the arrays its parts do.
    const delinearize: Delinearizer | undefined = hook && ((s) => (shapes ??= hook(s === scop ? found : s, am, budget)));
    const region = new Set(scop.blocks);
    const expandable = (expressions: readonly Scev[]): boolean => parametersExpandable(se, region, expressions);
    const built = buildScopModel(ctx, fn.parent, fn, scop, { ...options, delinearize, expandable }, se.factsAt(scop.entry), budget);
    if ('statements' in built) models.push(built);
    else rejections.push(built);
  }
  return { function: fn, models, rejections, dispose: () => ctx.dispose() };
}

/** The model analysis with a given quota and delinearizer (the passes make one from their options). */
export function scopModelAnalysisWith(options: ModelOptions): AnalysisKey<FunctionScopModels> {
  // The manager caches by name: models built under different options must not share an entry.
  const scopMaxOperations = options.scopMaxOperations ?? defaultScopMaxOperations;
  const split = options.splitStatements !== false;
  const standard = options.maxOperations === defaultMaxOperations && scopMaxOperations === defaultScopMaxOperations && options.delinearize === defaultDelinearizer && split;
  const name = standard ? 'scop-model' : `scop-model(max-ops=${options.maxOperations},scop-max-ops=${scopMaxOperations}${options.delinearize ? ',delinearized' : ''}${split ? '' : ',unsplit'})`;
  return { name, compute: (fn, am) => buildFunctionModels(fn, am, options), dispose: (models) => models.dispose() };
}

/**
 * Delinearization as the model uses it unless told otherwise: the cached
 * `delinearizationAnalysis` (with the SCoP's entry facts), the same result
 * `print<delinearization>` and the report show. One shared instance, so models
 * share a cache entry.
 */
export const defaultDelinearizer: Delinearizer = sharedDelinearizer;

/** The model with the default quota and delinearization. */
export const scopModelAnalysis: AnalysisKey<FunctionScopModels> = scopModelAnalysisWith({ maxOperations: defaultMaxOperations, delinearize: defaultDelinearizer });

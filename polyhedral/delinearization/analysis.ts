// Delinearization as a function analysis: every SCoP of a function, with the
// facts scalar evolution knows at the SCoP's entry (`n >= 1` inside `if (n > 0)`).
// The polyhedral model (through `defaultDelinearizer`), `print<delinearization>`
// and the report all read this one cached result, so they agree.
import type { Value } from '../../ir';
import type { Scop } from '../../analysis/scop-detection-types';
import { scopDetectionAnalysis } from '../../analysis/scop-detection';
import { scalarEvolutionAnalysis } from '../../analysis/scalar-evolution';
import type { AnalysisKey, FunctionAnalysisManager } from '../../analysis/analysis-manager';
import type { ScopBudget } from '../budget';
import type { DelinearizeOptions } from './index';
import { type ModelArrayShape, type ScopDelinearization, type ScopDelinearizeOptions, delinearizeScop } from './scop-adapter';

/** §3.3 shifts and isl operations per candidate shape when nobody says otherwise. */
export const defaultDelinearizeOptions: Required<Pick<DelinearizeOptions, 'maxShift' | 'maxOperations'>> = { maxShift: 1, maxOperations: 2_000_000 };

/**
 * The delinearizations of a function's SCoPs, each computed on first request and kept. The
 * model asks with the SCoP's isl budget (`underBudget`), `print<delinearization>` and the
 * report without; a result is kept only when it is what an unbounded run gives.
 */
export class FunctionDelinearizations {
  readonly #results = new Map<Scop, ScopDelinearization>();

  constructor(
    private readonly scops: ReadonlySet<Scop>,
    private readonly compute: (scop: Scop, underBudget?: ScopDelinearizeOptions['underBudget']) => ScopDelinearization,
  ) {}

  /** The SCoP's delinearization; undefined for a SCoP of another detection run. */
  get(scop: Scop): ScopDelinearization | undefined {
    if (!this.scops.has(scop)) return undefined;
    let r = this.#results.get(scop);
    if (!r) this.#results.set(scop, (r = this.compute(scop)));
    return r;
  }

  /**
   * The SCoP's delinearization as the model's first step, spending from `budget`: a kept
   * result is charged what it spent; otherwise it runs under what remains of the budget, and
   * is kept unless the budget ran out in it (isl counts the same operations either way, so a
   * run the budget did not stop equals an unbounded one). Undefined as for get().
   */
  getUnder(scop: Scop, budget: ScopBudget): ScopDelinearization | undefined {
    if (!this.scops.has(scop)) return undefined;
    const kept = this.#results.get(scop);
    if (kept) {
      budget.charge('delinearization', kept.islOperations ?? 0);
      return kept;
    }
    const r = this.compute(scop, (ctx, fn) => budget.run(ctx, 'delinearization', 0, fn));
    if (budget.exhaustedBy === undefined) this.#results.set(scop, r);
    return r;
  }
}

/** Delinearization of a function's SCoPs, cached by the analysis manager (and dropped with SCoP detection, which its keys are). */
export function delinearizationAnalysisWith(options: DelinearizeOptions, name = 'delinearization'): AnalysisKey<FunctionDelinearizations> {
  return {
    name,
    compute: (fn, am) => {
      const se = am.get(scalarEvolutionAnalysis, fn);
      return new FunctionDelinearizations(new Set(am.get(scopDetectionAnalysis, fn).scops), (scop, underBudget) =>
        delinearizeScop(scop, { ...options, entryFacts: se.factsAt(scop.entry), underBudget }));
    },
  };
}

/** With the defaults: what the model, the printer and the report share. */
export const delinearizationAnalysis = delinearizationAnalysisWith(defaultDelinearizeOptions);

/**
 * The model's default hook: the shared analysis when the model is built through an analysis
 * manager (with the SCoP's `budget`, spending from it: `getUnder`), else a computation of its
 * own (without entry facts), under the budget when given.
 */
export function sharedDelinearizer(scop: Scop, am?: FunctionAnalysisManager, budget?: ScopBudget): ReadonlyMap<Value, ModelArrayShape> {
  const fn = scop.entry.parent;
  const all = am && fn ? am.get(delinearizationAnalysis, fn) : undefined;
  const shared = budget ? all?.getUnder(scop, budget) : all?.get(scop);
  const underBudget: ScopDelinearizeOptions['underBudget'] = budget && ((ctx, f) => budget.run(ctx, 'delinearization', 0, f));
  return (shared ?? delinearizeScop(scop, { ...defaultDelinearizeOptions, underBudget })).shapes;
}

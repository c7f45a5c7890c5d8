// Delinearization as a function analysis: every SCoP of a function, with the
// facts scalar evolution knows at the SCoP's entry (`n >= 1` inside `if (n > 0)`).
// The polyhedral model (through `defaultDelinearizer`), `print<delinearization>`
// and the report all read this one cached result, so they agree.
import type { Value } from '../../ir';
import type { Scop } from '../../passes/analysis/scop-detection-types';
import { scopDetectionAnalysis } from '../../passes/analysis/scop-detection';
import { scalarEvolutionAnalysis } from '../../passes/analysis/scalar-evolution';
import type { AnalysisKey, FunctionAnalysisManager } from '../../passes/pass';
import type { DelinearizeOptions } from './index';
import { type ModelArrayShape, type ScopDelinearization, delinearizeScop } from './scop-adapter';

/** §3.3 shifts and isl operations per candidate shape when nobody says otherwise. */
export const defaultDelinearizeOptions: Required<Pick<DelinearizeOptions, 'maxShift' | 'maxOperations'>> = { maxShift: 1, maxOperations: 2_000_000 };

/**
 * Delinearization of every SCoP of a function, cached by the analysis manager
 * (and dropped with SCoP detection, which its keys are).
 */
export function delinearizationAnalysisWith(options: DelinearizeOptions, name = 'delinearization'): AnalysisKey<ReadonlyMap<Scop, ScopDelinearization>> {
  return {
    name,
    compute: (fn, am) => {
      const se = am.get(scalarEvolutionAnalysis, fn);
      return new Map(am.get(scopDetectionAnalysis, fn).scops.map((scop) => [scop, delinearizeScop(scop, { ...options, entryFacts: se.factsAt(scop.entry) })]));
    },
  };
}

/** With the defaults: what the model, the printer and the report share. */
export const delinearizationAnalysis = delinearizationAnalysisWith(defaultDelinearizeOptions);

/**
 * The shared result for `scop`, or undefined when `am` has no such SCoP (a SCoP
 * from another detection run).
 */
export function scopDelinearization(scop: Scop, am: FunctionAnalysisManager): ScopDelinearization | undefined {
  const fn = scop.entry.parent;
  return fn ? am.get(delinearizationAnalysis, fn).get(scop) : undefined;
}

/**
 * The model's default hook: the shared analysis when the model is built through an
 * analysis manager, else a computation of its own (without entry facts).
 */
export function sharedDelinearizer(scop: Scop, am?: FunctionAnalysisManager): ReadonlyMap<Value, ModelArrayShape> {
  const shared = am ? scopDelinearization(scop, am) : undefined;
  return (shared ?? delinearizeScop(scop, defaultDelinearizeOptions)).shapes;
}

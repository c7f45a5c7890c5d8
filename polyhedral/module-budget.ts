// One budget for a whole module: the per-SCoP budget (budget.ts) bounds one SCoP, but a
// module of thousands of loop functions could still take tsopt an hour. The module budget bounds
// how much isl work goes into modelling the module's SCoPs (delinearization, model, dependences:
// the steps every SCoP pays before any pass can use it) and, when asked, tsopt's CPU seconds. Once
// it is used up, the functions not modelled yet get no models: their SCoPs are left as they are,
// as rejections the report lists (`module budget ran out` in their detail) and counts
// (`moduleBudget` in the report's pipeline section), and the output is still written.
//
// Counting only the modelling steps makes the decision independent of when the later steps (the
// check and AST of versioning, DeLICM) run: with `--report` every function is modelled before the
// pipeline, without it one function at a time, and both model the same functions. Each SCoP
// modelled is finished under its own budget, so the whole module costs at most this budget plus
// the later steps of the SCoPs modelled (on our kernels those cost about as much as the model).
//
// The steps that transform a modelled SCoP (interchange plans, the schedule optimizer, versioning's
// check and AST) have a limit of their own: on a module of thousands of small kernels they cost
// about five times the modelling (595M isl operations against 100M of modelling, 281 s of CPU,
// bench/big-module.ts). They run only in the passes, one function after the other, in the same
// order with and without `--report`, so the same functions are transformed either way. Once that
// limit is spent, the functions not transformed yet keep their SCoPs as they are (the passes report
// each one as not versioned, and the counts below include them). DeLICM's steps are not counted
// there: with `--report` and the delicm pass the report computes them for every function first.
import { type BudgetStep, type OuterBudget, ScopBudget } from './budget';

/**
 * isl operations for modelling a module's SCoPs, when nobody says otherwise: 100 million, about a
 * minute of isl here; the largest of our kernel files (covariance.c, 2mm.c) model theirs in a few million.
 */
export const defaultModuleMaxOperations = 100_000_000;

/** isl operations for transforming a module's SCoPs (the steps in TRANSFORMING), when nobody says otherwise: also about a minute of isl. */
export const defaultModuleMaxTransformOperations = 100_000_000;

export interface ModuleBudgetLimits {
  /** isl operations for modelling all SCoPs; 0 = no limit. */
  readonly operations: number;
  /** isl operations for transforming modelled SCoPs (TRANSFORMING); 0 = no limit. Optional for callers that only model. */
  readonly transformOperations?: number;
  /** CPU seconds of the whole tsopt process (user and system); 0 = no limit. */
  readonly cpuSeconds: number;
}

/** What the report's `moduleBudget` says. */
export interface ModuleBudgetSummary {
  readonly operationsLimit: number;
  /** isl operations spent modelling SCoPs (what the limit counts). */
  readonly modellingOperations: number;
  /** isl operations spent on SCoPs in all, later steps included. */
  readonly operationsSpent: number;
  readonly transformOperationsLimit: number;
  /** isl operations spent transforming modelled SCoPs (what the transform limit counts). */
  readonly transformOperations: number;
  readonly cpuSecondsLimit: number;
  /** What ran out first, or undefined when nothing did. */
  readonly exhaustedBy: Exhausted | undefined;
  /** SCoPs left as they were because the budget was used up before their function was modelled or transformed. */
  readonly untouchedScops: number;
  readonly untouchedFunctions: number;
}

type Exhausted = 'isl operations' | 'isl operations for transforming' | 'CPU seconds';

const MODELLING: ReadonlySet<BudgetStep> = new Set<BudgetStep>(['delinearization', 'model', 'dependences']);
const TRANSFORMING: ReadonlySet<BudgetStep> = new Set<BudgetStep>(['interchange', 'schedule', 'check and AST']);

export class ModuleBudget implements OuterBudget {
  #modelling = 0;
  #transforming = 0;
  #spent = 0;
  readonly #cpuAtStart = process.cpuUsage();
  #exhaustedBy: ModuleBudgetSummary['exhaustedBy'];
  #untouchedScops = 0;
  #untouchedFunctions = 0;
  /** Functions modelled, and those left untouched (with the reason), so that a second request decides alike. */
  readonly #admitted = new WeakSet<object>();
  readonly #untouched = new WeakMap<object, string>();
  /** Functions the passes went on to transform. */
  readonly #transformed = new WeakSet<object>();
  /** Counts later spending only (a function's models built again after they were freed): modelling them again is not counted as modelling. */
  readonly #again: OuterBudget = { charged: (step, operations) => this.#count(step, operations, false) };

  constructor(readonly limits: ModuleBudgetLimits) {}

  charged(step: BudgetStep, operations: number): void {
    this.#count(step, operations, true);
  }

  #count(step: BudgetStep, operations: number, modelling: boolean): void {
    this.#spent += operations;
    if (modelling && MODELLING.has(step)) this.#modelling += operations;
    if (TRANSFORMING.has(step)) this.#transforming += operations;
  }

  /**
   * Whether `fn` (with `scops` SCoPs) may be modelled: yes while the budget lasts, and always for a
   * function modelled before (its models were freed: the CLI's report frees them function by
   * function, and the passes build them again). Otherwise the rejection detail for its SCoPs.
   */
  admit(fn: object, scops: number): { budget: (scopLimit: number) => ScopBudget } | { untouched: string } {
    const known = this.#untouched.get(fn);
    if (known !== undefined) return { untouched: known };
    if (this.#admitted.has(fn)) return { budget: (limit) => new ScopBudget(limit, this.#again) };
    if (this.exhausted) {
      const untouched = this.#leaveUntouched(scops);
      this.#untouched.set(fn, untouched);
      return { untouched };
    }
    this.#admitted.add(fn);
    return { budget: (limit) => new ScopBudget(limit, this) };
  }

  /**
   * Whether the passes may transform the SCoPs of `fn` (`scops()` of them, as detection finds
   * them; asked only when it is left): undefined while the transform budget lasts (and for a
   * function left untouched already, which has no models). Otherwise the detail for each of its
   * SCoPs, which stay as they are; the function is then not modelled again either.
   */
  untransformed(fn: object, scops: () => number): string | undefined {
    if (this.#untouched.has(fn) || this.#transformed.has(fn)) return undefined;
    if (!this.#outOf('transforming')) {
      this.#transformed.add(fn);
      return undefined;
    }
    const detail = this.#leaveUntouched(scops(), 'transforming');
    this.#untouched.set(fn, detail);
    return detail;
  }

  /** Whether a function whose models are not built yet must be left as it is. Once true, stays true. */
  get exhausted(): boolean {
    return this.#outOf('modelling');
  }

  /** What ran out for each phase (isl operations of its own, or the CPU seconds of both); once set, stays. */
  readonly #ranOut: { modelling?: Exhausted; transforming?: Exhausted } = {};

  #outOf(phase: 'modelling' | 'transforming'): boolean {
    if (this.#ranOut[phase] === undefined) {
      const [limit, spent, what] = phase === 'modelling'
        ? [this.limits.operations, this.#modelling, 'isl operations' as const]
        : [this.#transformLimit, this.#transforming, 'isl operations for transforming' as const];
      if (limit > 0 && spent >= limit) this.#ranOut[phase] = what;
      else if (this.limits.cpuSeconds > 0 && cpuSecondsSince(this.#cpuAtStart) >= this.limits.cpuSeconds) this.#ranOut[phase] = 'CPU seconds';
      this.#exhaustedBy ??= this.#ranOut[phase];
    }
    return this.#ranOut[phase] !== undefined;
  }

  get #transformLimit(): number {
    return this.limits.transformOperations ?? 0;
  }

  /** Counts a function with `scops` SCoPs left untouched; returns the rejection detail for each. */
  #leaveUntouched(scops: number, phase: 'modelling' | 'transforming' = 'modelling'): string {
    this.#untouchedScops += scops;
    if (scops > 0) this.#untouchedFunctions++;
    const why = this.#ranOut[phase];
    const limit = why === 'CPU seconds'
      ? `${this.limits.cpuSeconds} CPU seconds, --module-max-cpu-seconds`
      : why === 'isl operations for transforming'
        ? `${this.#transformLimit} isl operations for transforming, --module-max-transform-operations`
        : `${this.limits.operations} isl operations for modelling, --module-max-operations`;
    return `left as it was: the module budget ran out (${limit}) before this function was ${phase === 'modelling' ? 'modelled' : 'transformed'}`;
  }

  summary(): ModuleBudgetSummary {
    return {
      operationsLimit: this.limits.operations,
      modellingOperations: this.#modelling,
      operationsSpent: this.#spent,
      transformOperationsLimit: this.#transformLimit,
      transformOperations: this.#transforming,
      cpuSecondsLimit: this.limits.cpuSeconds,
      exhaustedBy: this.#exhaustedBy,
      untouchedScops: this.#untouchedScops,
      untouchedFunctions: this.#untouchedFunctions,
    };
  }
}

function cpuSecondsSince(start: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(start);
  return (u.user + u.system) / 1e6;
}

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
import { type BudgetStep, type OuterBudget, ScopBudget } from './budget';

/**
 * isl operations for modelling a module's SCoPs, when nobody says otherwise: 100 million, about a
 * minute of isl here; the largest of our kernel files (covariance.c, 2mm.c) model theirs in a few million.
 */
export const defaultModuleMaxOperations = 100_000_000;

export interface ModuleBudgetLimits {
  /** isl operations for modelling all SCoPs; 0 = no limit. */
  readonly operations: number;
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
  readonly cpuSecondsLimit: number;
  /** What ran out, or undefined when nothing did. */
  readonly exhaustedBy: 'isl operations' | 'CPU seconds' | undefined;
  /** SCoPs left as they were because the budget was used up before their function was modelled. */
  readonly untouchedScops: number;
  readonly untouchedFunctions: number;
}

const MODELLING: ReadonlySet<BudgetStep> = new Set<BudgetStep>(['delinearization', 'model', 'dependences']);

export class ModuleBudget implements OuterBudget {
  #modelling = 0;
  #spent = 0;
  readonly #cpuAtStart = process.cpuUsage();
  #exhaustedBy: ModuleBudgetSummary['exhaustedBy'];
  #untouchedScops = 0;
  #untouchedFunctions = 0;
  /** Functions modelled, and those left untouched (with the reason), so that a second request decides alike. */
  readonly #admitted = new WeakSet<object>();
  readonly #untouched = new WeakMap<object, string>();
  /** Counts later spending only (a function's models built again after they were freed). */
  readonly #again: OuterBudget = { charged: (_step, operations) => void (this.#spent += operations) };

  constructor(readonly limits: ModuleBudgetLimits) {}

  charged(step: BudgetStep, operations: number): void {
    this.#spent += operations;
    if (MODELLING.has(step)) this.#modelling += operations;
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

  /** Whether a function whose models are not built yet must be left as it is. Once true, stays true. */
  get exhausted(): boolean {
    if (this.#exhaustedBy) return true;
    if (this.limits.operations > 0 && this.#modelling >= this.limits.operations) this.#exhaustedBy = 'isl operations';
    else if (this.limits.cpuSeconds > 0 && cpuSecondsSince(this.#cpuAtStart) >= this.limits.cpuSeconds) this.#exhaustedBy = 'CPU seconds';
    return this.#exhaustedBy !== undefined;
  }

  /** Counts a function with `scops` SCoPs left untouched; returns the rejection detail for each. */
  #leaveUntouched(scops: number): string {
    this.#untouchedScops += scops;
    if (scops > 0) this.#untouchedFunctions++;
    const limit = this.#exhaustedBy === 'CPU seconds'
      ? `${this.limits.cpuSeconds} CPU seconds, --module-max-cpu-seconds`
      : `${this.limits.operations} isl operations for modelling, --module-max-operations`;
    return `left as it was: the module budget ran out (${limit}) before this function was modelled`;
  }

  summary(): ModuleBudgetSummary {
    return {
      operationsLimit: this.limits.operations,
      modellingOperations: this.#modelling,
      operationsSpent: this.#spent,
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

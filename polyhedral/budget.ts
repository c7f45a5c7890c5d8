// One isl budget per SCoP (bounded compile time): every isl-heavy step done
// for a SCoP -- delinearization, the model, its dependences, DeLICM, the run-time check
// and the AST -- spends from the same allowance of isl operations. A step may also have
// a limit of its own (the older per-step options); it then runs under the smaller of the
// two. When the budget runs out the step gives up as it does on its own quota (the SCoP
// is dropped, left unchanged or not versioned) and `reason()` says which step ran out.
//
// The budget spans isl contexts (delinearization has its own), so it keeps its own
// total; runs may nest (dependences inside the model), on one context through
// `Ctx.withMaxOperations`, which charges an inner quota's spending to the outer one,
// and each step is charged what it spent itself.
import type { Ctx } from 'isl-wasm';

/**
 * isl operations per SCoP over every step, when nobody says otherwise. The largest of
 * our kernels (covariance, doitgen, 2mm at -O3) spend a few million; past 20 million a
 * SCoP costs seconds of compile time, which no run-time gain is known to repay.
 */
export const defaultScopMaxOperations = 20_000_000;

/** The steps, as reports name them. */
export type BudgetStep = 'delinearization' | 'model' | 'dependences' | 'dataflow' | 'delicm' | 'interchange' | 'schedule' | 'check and AST';

/** What one step spent: isl operations, and wall-clock milliseconds (JS work included) when it ran under the budget. */
export interface StepUse {
  operations: number;
  ms: number | undefined;
}

interface Frame {
  readonly ctx: Ctx;
  /** `ctx.operations` when the run began. */
  start: number;
  /** Operations and milliseconds charged by runs nested in this one on the same context. */
  nested: number;
  nestedMs: number;
}

/** A budget over many SCoPs (the module's, module-budget.ts), told of what each of them spends. */
export interface OuterBudget {
  charged(step: BudgetStep, operations: number): void;
}

export class ScopBudget {
  #spent = 0;
  readonly #frames: Frame[] = [];
  /** Per step, in the order steps first ran. */
  readonly steps = new Map<BudgetStep, StepUse>();
  /** The first step that ran out of the budget (not of a limit of its own). */
  exhaustedBy: BudgetStep | undefined;

  /** `limit`: isl operations for the whole SCoP; 0 = no limit. `outer` is told of every charge. */
  constructor(readonly limit: number, private readonly outer?: OuterBudget) {}

  /** isl operations charged so far. */
  get spent(): number {
    return this.#spent;
  }

  /** Operations left (Infinity without a limit). */
  get remaining(): number {
    return this.limit > 0 ? Math.max(this.limit - this.#spent - this.#inFlight(), 0) : Infinity;
  }

  /**
   * Runs fn, whose isl work happens in `ctx`, under the smaller of `stepLimit` (0: none)
   * and what remains of the budget, and charges what it spent to `step`. Quota errors
   * pass through unchanged (each step turns them into its own outcome); when the budget
   * was the binding limit and is used up afterwards, `exhaustedBy` names the step.
   */
  run<T>(ctx: Ctx, step: BudgetStep, stepLimit: number, fn: () => T): T {
    const remaining = this.remaining;
    const budgetBinds = remaining !== Infinity && (stepLimit === 0 || remaining <= stepLimit);
    // withMaxOperations(0) would mean "no limit": a used-up budget gives a quota of 1,
    // so isl stops at once. isl notices a quota at the next operation it counts, so the call
    // that crosses it may finish a few operations past it (tens, not thousands).
    const quota = budgetBinds ? Math.max(remaining, 1) : stepLimit;
    const frame: Frame = { ctx, start: 0, nested: 0, nestedMs: 0 };
    const began = performance.now();
    let spent = 0;
    this.#frames.push(frame);
    try {
      return ctx.withMaxOperations(quota, () => {
        frame.start = ctx.operations;
        try {
          return fn();
        } finally {
          spent = ctx.operations - frame.start;
        }
      });
    } finally {
      this.#frames.pop();
      const ms = performance.now() - began;
      const outer = this.#frames[this.#frames.length - 1];
      if (outer?.ctx === ctx) {
        outer.nested += spent;
        outer.nestedMs += ms;
      }
      this.#charge(step, spent - frame.nested, ms - frame.nestedMs);
      if (budgetBinds && spent >= quota) this.exhaustedBy ??= step;
    }
  }

  /** Charges work done and bounded elsewhere (delinearization, in its own context and cache). */
  charge(step: BudgetStep, operations: number): void {
    this.#charge(step, operations, undefined);
    if (this.limit > 0 && this.#spent >= this.limit) this.exhaustedBy ??= step;
  }

  /** Why the SCoP was given up, for reports: `the SCoP's isl budget of … ran out in dependences (…)`. */
  reason(): string {
    const used = [...this.steps].map(([step, u]) => `${step} ${u.operations}`).join(', ');
    return `the SCoP's isl budget of ${this.limit} operations (--scop-max-operations) ran out in ${this.exhaustedBy ?? 'no step'} (spent: ${used})`;
  }

  /** Operations per step, for the report's `islOperationsBySteps`. */
  bySteps(): Record<string, number> {
    return Object.fromEntries([...this.steps].map(([step, u]) => [step, u.operations]));
  }

  #charge(step: BudgetStep, operations: number, ms: number | undefined): void {
    this.#spent += operations;
    this.outer?.charged(step, operations);
    const use = this.steps.get(step) ?? { operations: 0, ms: undefined };
    use.operations += operations;
    if (ms !== undefined) use.ms = (use.ms ?? 0) + ms;
    this.steps.set(step, use);
  }

  /**
   * Operations the runs still open have spent and not charged yet: per context, the count
   * since its outermost open run began, minus what runs nested in open runs were charged.
   */
  #inFlight(): number {
    const firstStart = new Map<Ctx, number>();
    let charged = 0;
    for (const f of this.#frames) {
      if (!firstStart.has(f.ctx)) firstStart.set(f.ctx, f.start);
      charged += f.nested;
    }
    let n = -charged;
    for (const [c, start] of firstStart) n += c.operations - start;
    return n;
  }
}

/** The report's per-SCoP spending: isl operations in all and per step, and the milliseconds of the steps run under the budget. */
export function islSpending(model: { readonly budget: ScopBudget }): { islOperations: number; islOperationsBySteps: Record<string, number>; islStepMs: Record<string, number> } {
  const b = model.budget;
  const ms = [...b.steps].flatMap(([step, u]) => (u.ms === undefined ? [] : [[step, Math.round(u.ms)] as const]));
  return { islOperations: b.spent, islOperationsBySteps: b.bySteps(), islStepMs: Object.fromEntries(ms) };
}

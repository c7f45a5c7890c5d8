// The interchange plan as a cached analysis: each SCoP model's plan is made once, under the SCoP's
// budget (step `interchange`), however many times the passes ask (choosing the model to generate
// from asks of the plain model and of DeLICM's, versioning of the one it generates from).
import { IslError } from 'isl-wasm';
import type { AnalysisKey } from '../analysis/analysis-manager';
import type { FunctionScopModels, ScopModel } from '../polyhedral/model';
import { type InterchangePlan, planInterchange } from './interchange';

/** The plans of one function's models (the plain ones and DeLICM's), made on first request. */
export interface InterchangePlans {
  /** `model`'s plan, its isl objects kept in the model's context; undefined when isl gave up. */
  planFor(model: ScopModel): InterchangePlan | undefined;
}

/**
 * The plans of the models `models` gives (and of DeLICM's models made from them), each planned
 * under at most `maxOperations` isl operations. Dropped with the models; dropping it frees the
 * schedules and maps it kept.
 */
export function interchangePlanAnalysis(models: AnalysisKey<FunctionScopModels>, maxOperations: number): AnalysisKey<InterchangePlans> {
  return {
    name: `interchange-plans(${models.name},max-ops=${maxOperations})`,
    compute: (fn, am) => {
      // Read so that the plans go stale with the models whose contexts hold their schedules.
      am.get(models, fn);
      return new PlanCache(maxOperations);
    },
    dispose: (plans) => (plans as PlanCache).dispose(),
  };
}

class PlanCache implements InterchangePlans {
  private readonly plans = new Map<ScopModel, InterchangePlan | undefined>();

  constructor(private readonly maxOperations: number) {}

  planFor(model: ScopModel): InterchangePlan | undefined {
    if (!this.plans.has(model)) this.plans.set(model, planWithinBudget(model, this.maxOperations));
    return this.plans.get(model);
  }

  dispose(): void {
    for (const [model, plan] of this.plans) {
      if (model.ctx.disposed || !plan) continue;
      plan.schedule?.dispose();
      for (const m of plan.moved.values()) m.dispose();
    }
    this.plans.clear();
  }
}

function planWithinBudget(model: ScopModel, maxOperations: number): InterchangePlan | undefined {
  if (model.budget.exhaustedBy) return undefined;
  try {
    return model.budget.run(model.ctx, 'interchange', maxOperations, () => model.ctx.scope(() => {
      const plan = planInterchange(model);
      return { ...plan, schedule: plan.schedule?.keep(), moved: new Map([...plan.moved].map(([st, m]) => [st, m.keep()] as const)) };
    }));
  } catch (e) {
    if (e instanceof IslError) return undefined;
    throw e;
  }
}

// The polyhedral model's printer passes: `print<scops>` (domains, schedules,
// accesses, context, assumptions) and `print<dependences>` (RAW/WAR/WAW and
// the parallel loops). Like opt's `print<…>` passes they write to stderr and
// change nothing. The registry lists `scopPasses`.
import type { Module } from '../ir';
import { defaultDelinearizer, scopModelAnalysisWith } from '../polyhedral/analysis';
import { type ModelOptions, defaultMaxOperations } from '../polyhedral/build';
import { defaultScopMaxOperations } from '../polyhedral/budget';
import type { FunctionScopModels, ScopModel } from '../polyhedral/model';
import { printDependences, printFunctionModels, printScopModel } from '../polyhedral/print';
import type { AnalysisKey, ModulePass, PassContext, PassOption } from './pass';
import { booleanOption, nonNegativeIntegerOption } from './pass';
import { moduleBudgetOptions } from './module-budget-options';

/** `--isl-max-operations=N`: isl operations allowed per SCoP while modelling it (0: no limit). */
export const maxOperationsOption: PassOption = {
  name: 'isl-max-operations',
  description: `isl operations allowed per SCoP for the model and its dependences, a step of --scop-max-operations; past it the SCoP is dropped with a reason (default ${defaultMaxOperations}, 0 = no limit)`,
};

/** `--scop-max-operations=N`: the SCoP's one isl budget over every step (polyhedral/budget.ts). */
export const scopMaxOperationsOption: PassOption = {
  name: 'scop-max-operations',
  description:
    'isl operations per SCoP over all its steps together: delinearization, model, dependences, DeLICM, run-time check and AST; ' +
    'past it the SCoP is left as it was and the report says which step ran out, and islOperations what each SCoP spent ' +
    `(default ${defaultScopMaxOperations}, 0 = no limit; --isl-max-operations, --delicm-max-operations and --codegen-max-operations bound single steps within it)`,
};

/** `--split-statements=false`: each block one statement (analysis/statement-split.ts). */
export const splitStatementsOption: PassOption = {
  name: 'split-statements',
  description: "split a block whose PHI chain (a sum kept in a register) and array update are independent into two statements, so the schedule optimizer may move the update (default true; the report's splitStatements names the parts)",
};

export function maxOperationsFrom(ctx: Pick<PassContext, 'options'>): number {
  return nonNegativeIntegerOption(ctx, maxOperationsOption, defaultMaxOperations);
}

/** The model's options as the passes' command line gives them (the report reads the same, cli/pipeline-report.ts). */
export function modelOptionsFrom(ctx: Pick<PassContext, 'options' | 'moduleBudget'>): ModelOptions {
  return {
    maxOperations: maxOperationsFrom(ctx),
    scopMaxOperations: nonNegativeIntegerOption(ctx, scopMaxOperationsOption, defaultScopMaxOperations),
    delinearize: defaultDelinearizer,
    moduleBudget: ctx.moduleBudget,
    splitStatements: booleanOption(ctx, splitStatementsOption, true),
  };
}

/** The model analysis the passes share, keyed by their options. */
export function modelAnalysisFrom(ctx: Pick<PassContext, 'options' | 'moduleBudget'>): AnalysisKey<FunctionScopModels> {
  return scopModelAnalysisWith(modelOptionsFrom(ctx));
}

/** A printer of every SCoP model of every function (`body` gives one SCoP's lines). */
export function printerPass(name: string, description: string, body: (m: ScopModel, ctx: PassContext) => string, options: readonly PassOption[] = [maxOperationsOption, scopMaxOperationsOption, splitStatementsOption, ...moduleBudgetOptions]): ModulePass {
  return {
    name,
    description,
    options: [...options],
    run(module: Module, ctx: PassContext) {
      const analysis = modelAnalysisFrom(ctx);
      for (const fn of module.functions) {
        if (fn.isDeclaration) continue;
        const models = ctx.am.get(analysis, fn);
        ctx.stats.set('scops', (ctx.stats.get('scops') ?? 0) + models.models.length);
        process.stderr.write(printFunctionModels(models, (m) => body(m, ctx)));
      }
      return 'all';
    },
  };
}

export const printScopsPass = printerPass(
  'print<scops>',
  'print each SCoP\'s polyhedral model: parameters, context, assumptions, arrays, domains, schedules and access relations',
  printScopModel,
);

export const printDependencesPass = printerPass(
  'print<dependences>',
  'print each SCoP\'s RAW/WAR/WAW dependences (array and scalar apart) and which loops carry none',
  printDependences,
);

export const scopPasses: ModulePass[] = [printScopsPass, printDependencesPass];

// The polyhedral model's printer passes: `print<scops>` (domains, schedules,
// accesses, context, assumptions) and `print<dependences>` (RAW/WAR/WAW and
// the parallel loops). Like opt's `print<…>` passes they write to stderr and
// change nothing. The registry lists `scopPasses`.
import type { Module } from '../ir';
import { defaultDelinearizer, scopModelAnalysisWith } from '../polyhedral/analysis';
import { defaultMaxOperations } from '../polyhedral/build';
import type { ScopModel } from '../polyhedral/model';
import { printDependences, printFunctionModels, printScopModel } from '../polyhedral/print';
import type { ModulePass, PassContext, PassOption } from './pass';
import { nonNegativeIntegerOption } from './pass';

/** `--isl-max-operations=N`: isl operations allowed per SCoP while modelling it (0: no limit). */
export const maxOperationsOption: PassOption = {
  name: 'isl-max-operations',
  description: `isl operations allowed per SCoP for the model and its dependences; past it the SCoP is dropped with a reason (default ${defaultMaxOperations}, 0 = no limit)`,
};

export function maxOperationsFrom(ctx: PassContext): number {
  return nonNegativeIntegerOption(ctx, maxOperationsOption, defaultMaxOperations);
}

function printerPass(name: string, description: string, body: (m: ScopModel) => string): ModulePass {
  return {
    name,
    description,
    options: [maxOperationsOption],
    run(module: Module, ctx: PassContext) {
      const analysis = scopModelAnalysisWith({ maxOperations: maxOperationsFrom(ctx), delinearize: defaultDelinearizer });
      for (const fn of module.functions) {
        if (fn.isDeclaration) continue;
        const models = ctx.am.get(analysis, fn);
        ctx.stats.set('scops', (ctx.stats.get('scops') ?? 0) + models.models.length);
        process.stderr.write(printFunctionModels(models, body));
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

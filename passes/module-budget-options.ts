// The module budget's options (polyhedral/module-budget.ts), read once per run: the CLI's report of
// the input and the pipeline's passes must spend from the same budget.
import { defaultModuleMaxOperations, defaultModuleMaxTransformOperations, ModuleBudget } from '../polyhedral/module-budget';
import { nonNegativeIntegerOption, type PassOption } from './pass';

export const moduleMaxOperationsOption: PassOption = {
  name: 'module-max-operations',
  description:
    'isl operations for modelling all SCoPs of the module together (delinearization, model, dependences; each SCoP modelled is finished under --scop-max-operations); ' +
    'once spent, the functions not modelled yet keep their SCoPs as they are ' +
    `(the report's rejected regions say so, and its moduleBudget counts them) and the output is still written (default ${defaultModuleMaxOperations}, 0 = no limit)`,
};

export const moduleMaxTransformOperationsOption: PassOption = {
  name: 'module-max-transform-operations',
  description:
    'isl operations for transforming the modelled SCoPs of the module together (interchange plans, the schedule optimizer, the run-time check and AST of versioning); ' +
    'once spent, the functions not transformed yet keep their SCoPs as they are (the report gives each one as not versioned, and its moduleBudget counts them) ' +
    `and the output is still written (default ${defaultModuleMaxTransformOperations}, 0 = no limit)`,
};

export const moduleMaxCpuSecondsOption: PassOption = {
  name: 'module-max-cpu-seconds',
  description: 'CPU seconds of the tsopt process after which, as with --module-max-operations, no further function is modelled or transformed (default 0 = no limit; not reproducible across machines, unlike operations)',
};

export const moduleBudgetOptions: readonly PassOption[] = [moduleMaxOperationsOption, moduleMaxTransformOperationsOption, moduleMaxCpuSecondsOption];

/** A fresh module budget from the command line's options. */
export function moduleBudgetFrom(options: ReadonlyMap<string, string>): ModuleBudget {
  return new ModuleBudget({
    operations: nonNegativeIntegerOption({ options }, moduleMaxOperationsOption, defaultModuleMaxOperations),
    transformOperations: nonNegativeIntegerOption({ options }, moduleMaxTransformOperationsOption, defaultModuleMaxTransformOperations),
    cpuSeconds: nonNegativeIntegerOption({ options }, moduleMaxCpuSecondsOption, 0),
  });
}

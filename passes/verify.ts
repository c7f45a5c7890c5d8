// `verify`: LLVM's verifier as a pass, for pipelines like `--passes=a,verify,b`.
import { printModule } from '../ir';
import { verifyText } from '../ir/gateway';
import { InvalidModuleError } from '../ir/errors';
import type { ModulePass } from './pass';

export const verifyPass: ModulePass = {
  name: 'verify',
  description: "run LLVM's verifier on the module; stop with its message if the module is broken",
  run(module) {
    const problem = verifyText(printModule(module));
    // The input was verified when it was read: a module failing here was broken by a pass (exit 2).
    if (problem !== undefined) throw new InvalidModuleError(`the module fails verification: ${problem}`);
    return 'all';
  },
};

// `verify`: LLVM's verifier as a pass, for pipelines like `--passes=a,verify,b`.
import { printModule } from '../ir';
import { verifyText } from '../ir/gateway';
import { TsoptError } from '../ir/errors';
import type { ModulePass } from './pass';

export const verifyPass: ModulePass = {
  name: 'verify',
  description: "run LLVM's verifier on the module; stop with its message if the module is broken",
  run(module) {
    const problem = verifyText(printModule(module));
    if (problem !== undefined) throw new TsoptError(`the module fails verification: ${problem}`);
    return 'all';
  },
};

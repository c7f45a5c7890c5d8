// `hoist-loads`: one load before a branch where both arms load the same address before anything in
// them may write it (codegen/hoist-loads.ts), before SCoP detection and opt-14's vectorizers, so
// the if-converted arms do not load back what the other arm's masked store just wrote.
import { dominatorTreeAnalysis } from '../analysis/dominators';
import { hoistCommonLoads } from '../codegen/hoist-loads';
import { functionRewritePass } from './function-rewrite';

export const hoistLoadsPass = functionRewritePass({
  name: 'hoist-loads',
  description: 'one load before a branch where both arms load the same address on entry',
  option: {
    name: 'hoist-loads',
    description: 'where both arms of a branch load the same address before anything in them may write it, load it once before the branch (default true)',
  },
  counted: 'loads hoisted above branches',
  remark: (n) => `${n} load${n === 1 ? '' : 's'} both arms of a branch made now made once before it`,
  rewrite: (fn, m, am) => hoistCommonLoads(fn, m, am.get(dominatorTreeAnalysis, fn)),
});

// `sink-stores`: one store at a join where every branch into it stores to the same address
// (codegen/sink-stores.ts), before SCoP detection and opt-14's vectorizers, so a loop that
// updates one element in each branch of an if/else chain is vectorized with one plain store of
// the selected value instead of a masked store per branch.
import { dominatorTreeAnalysis } from '../analysis/dominators';
import { sinkStores } from '../codegen/sink-stores';
import { functionRewritePass } from './function-rewrite';

export const sinkStoresPass = functionRewritePass({
  name: 'sink-stores',
  description: "one store at a join where every predecessor ends by storing to the same address (the n-way form of LLVM's mldst-motion)",
  option: {
    name: 'sink-stores',
    description: 'where every branch into a join ends by storing to the same address, store the selected value once at the join instead (default true)',
  },
  counted: 'stores sunk into joins',
  remark: (n) => `${n} join${n === 1 ? '' : 's'} now store once what each branch stored`,
  rewrite: (fn, _m, am) => sinkStores(fn, am.get(dominatorTreeAnalysis, fn)),
});

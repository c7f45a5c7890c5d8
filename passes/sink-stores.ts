// `sink-stores`: one store at a join where every branch into it stores to the same address
// (codegen/sink-stores.ts), before SCoP detection and opt-14's vectorizers, so a loop that
// updates one element in each branch of an if/else chain is vectorized with one plain store of
// the selected value instead of a masked store per branch.
import { dominatorTreeAnalysis } from '../analysis/dominators';
import { sinkStores } from '../codegen/sink-stores';
import { booleanOption, type ModulePass, type PassOption } from './pass';

export const sinkStoresOption: PassOption = {
  name: 'sink-stores',
  description: 'where every branch into a join ends by storing to the same address, store the selected value once at the join instead (default true)',
};

export const sinkStoresPass: ModulePass = {
  name: 'sink-stores',
  description: 'one store at a join where every predecessor ends by storing to the same address (the n-way form of LLVM\'s mldst-motion)',
  options: [sinkStoresOption],
  run(module, ctx) {
    if (!booleanOption(ctx, sinkStoresOption, true)) return 'all';
    let changed = false;
    for (const fn of module.functions) {
      if (fn.isDeclaration) continue;
      const n = sinkStores(fn, ctx.am.get(dominatorTreeAnalysis, fn));
      if (n === 0) continue;
      changed = true;
      ctx.am.invalidate(fn, 'none');
      ctx.stats.set('stores sunk into joins', (ctx.stats.get('stores sunk into joins') ?? 0) + n);
      ctx.remarks.push({ pass: 'sink-stores', kind: 'applied', function: fn.name, location: fn.name, message: `${n} join${n === 1 ? '' : 's'} now store once what each branch stored` });
    }
    // 'none' when a function changed: the CLI hands a module every pass preserved to opt as read.
    return changed ? 'none' : 'all';
  },
};

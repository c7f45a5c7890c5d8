// `last-index`: the last index where a condition held (`if (c) j = i;` in a loop, TSVC's s331)
// rewritten as a maximum (codegen/last-index.ts), before SCoP detection and opt-14's vectorizers,
// which vectorize a maximum but not that recurrence.
import { loopAnalysis } from '../analysis/loops';
import { scalarEvolutionAnalysis } from '../analysis/scalar-evolution';
import { lastIndexAsMax } from '../codegen/last-index';
import { booleanOption, type ModulePass, type PassOption } from './pass';

export const lastIndexOption: PassOption = {
  name: 'last-index',
  description: 'rewrite `j = c ? i : j` in a loop whose index i never decreases from j\'s first value on as the maximum `smax(j, c ? i : INT_MIN)`, which opt vectorizes (default true)',
};

export const lastIndexPass: ModulePass = {
  name: 'last-index',
  description: 'the last index where a condition held, as a maximum opt can vectorize',
  options: [lastIndexOption],
  run(module, ctx) {
    if (!booleanOption(ctx, lastIndexOption, true)) return 'all';
    let changed = false;
    for (const fn of module.functions) {
      if (fn.isDeclaration) continue;
      const n = lastIndexAsMax(module, ctx.am.get(loopAnalysis, fn), ctx.am.get(scalarEvolutionAnalysis, fn));
      if (n === 0) continue;
      changed = true;
      ctx.am.invalidate(fn, 'none');
      ctx.stats.set('last indices as maxima', (ctx.stats.get('last indices as maxima') ?? 0) + n);
      ctx.remarks.push({ pass: 'last-index', kind: 'applied', function: fn.name, location: fn.name, message: `${n} last-index recurrence${n === 1 ? '' : 's'} now a maximum` });
    }
    // 'none' when a function changed: the CLI hands a module every pass preserved to opt as read.
    return changed ? 'none' : 'all';
  },
};

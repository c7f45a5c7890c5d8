// `last-index`: the last index where a condition held (`if (c) j = i;` in a loop, TSVC's s331)
// rewritten as a maximum (codegen/last-index.ts), before SCoP detection and opt-14's vectorizers,
// which vectorize a maximum but not that recurrence.
import { loopAnalysis } from '../analysis/loops';
import { scalarEvolutionAnalysis } from '../analysis/scalar-evolution';
import { lastIndexAsMax } from '../codegen/last-index';
import { functionRewritePass } from './function-rewrite';

export const lastIndexPass = functionRewritePass({
  name: 'last-index',
  description: 'the last index where a condition held, as a maximum opt can vectorize',
  option: {
    name: 'last-index',
    description: "rewrite `j = c ? i : j` in a loop whose index i never decreases from j's first value on as the maximum `smax(j, c ? i : INT_MIN)`, which opt vectorizes (default true)",
  },
  counted: 'last indices as maxima',
  remark: (n) => `${n} last-index recurrence${n === 1 ? '' : 's'} now a maximum`,
  rewrite: (fn, m, am) => lastIndexAsMax(m, am.get(loopAnalysis, fn), am.get(scalarEvolutionAnalysis, fn)),
});

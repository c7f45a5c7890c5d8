// Values merged by a phi inside an inner loop are seen from that loop: the
// recurrences of loops around it stay recurrences (LLVM's getSCEVAtScope keeps
// an add recurrence whose loop contains the scope). Robustness seed 35 turned the
// outer counter into its exit value 10, which became the inner loop's exit
// condition and made the versioned fast path skip iterations.
import { compileC, fn, analyses } from './helpers';
import { printScalarEvolution } from '../../passes/analysis-printers';

test('a non-header phi of the inner loop keeps the outer recurrence (seed 35)', () => {
  const f = fn(compileC('outer-iv-in-inner-phi.c'), 'kernel');
  const am = analyses();
  const out = printScalarEvolution(f, am).split('\n').map((l) => l.trim());
  // %21 and %30 (the two `j1 + 1`) and the phi %34 merging them.
  const rec = '{{1,+,1}<%6>,+,1}<%17>';
  expect(out).toContain(`%21 --> ${rec}`);
  expect(out).toContain(`%30 --> ${rec}`);
  expect(out).toContain(`%34 --> ${rec}`);
  // The inner loop's exit test compares that phi with %m: m - 1 - i1 more iterations, not m - 11.
  expect(out).toContain('loop %17: backedge-taken count is (0 smax {(-1 + %1),+,-1}<%6>)');
});

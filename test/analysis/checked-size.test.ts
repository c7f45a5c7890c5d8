// Facts from a size checked before the loops (analysis/scalar-evolution.ts, phiFacts and the
// unsigned comparison of `x + c`): n is 60 or strtol's value checked to lie in [1, 20000], so
// the unsigned exit tests `i < n` and `j < n` read as signed ones and the nest is one SCoP.
// Without the check, n may be above 2^63 and the exit tests stay unsigned comparisons.
import { compileC, fn, analyses } from './helpers';
import { scopDetectionAnalysis } from '../../analysis/scop-detection';
import type { Module } from '../../ir';

let m: Module;
beforeAll(() => {
  m = compileC('checked-size.c');
});

test('a size checked to lie in [1, 20000] before the loops: the nest is one SCoP', () => {
  const r = analyses().get(scopDetectionAnalysis, fn(m, 'checked'));
  expect(r.rejections.map((x) => `${x.cause}: ${x.detail}`)).toEqual([]);
  expect(r.scops).toHaveLength(1);
});

test('the same size unchecked: the unsigned exit tests are rejected', () => {
  const r = analyses().get(scopDetectionAnalysis, fn(m, 'unchecked'));
  expect(r.rejections.some((x) => x.cause === 'unsigned-comparison')).toBe(true);
});

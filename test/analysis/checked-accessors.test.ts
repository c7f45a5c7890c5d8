// Checked accessors (analysis/checked-accessors.ts): the functions tsopt inlines before the
// passes so that a loop calling them can be a SCoP (passes/checked-accessors.ts).
import { checkedAccessorsCalledInLoops, isCheckedAccessor } from '../../analysis/checked-accessors';
import type { Module } from '../../ir';
import { compileC, fn } from './helpers';

let m: Module;
beforeAll(() => {
  m = compileC('checked-accessors.cpp');
});

test('a function that returns an address after a check and otherwise prints and throws is a checked accessor', () => {
  expect(isCheckedAccessor(fn(m, '_ZN5Array2atEm'))).toBe(true);
  expect(isCheckedAccessor(fn(m, '_ZN5Other2atEm'))).toBe(true);
});

test('a store on the returning path, noinline, or no error path at all: not a checked accessor', () => {
  expect(isCheckedAccessor(fn(m, '_ZN5Array7countedEm'))).toBe(false);
  expect(isCheckedAccessor(fn(m, '_ZN5Array6pinnedEm'))).toBe(false);
  expect(isCheckedAccessor(fn(m, '_Z5twiced'))).toBe(false);
});

test('only the accessors a loop calls are inlined', () => {
  // -O3 left the accessors out of line (the premise): in_loops calls at, counted and pinned.
  expect(checkedAccessorsCalledInLoops(m).map((f) => f.name)).toEqual(['_ZN5Array2atEm']);
});

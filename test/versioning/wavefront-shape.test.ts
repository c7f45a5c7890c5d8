// The wavefront count behind the time tile height for threads (transform/wavefront-shape.ts):
// a case small enough to count by hand, and PolyBench heat-3d at LARGE (N = 120, 500 steps,
// skew 2, widths 8), whose wavefronts at height 4 are the 264 teams --rtc-stats counted per run
// in session 10.
import { wavefrontBalance, wavefrontHeight, type CountedStatement } from '../../transform/wavefront-shape';

test('one statement over t 0..3, x 0..7, tiles 2 x 4: wavefronts of 1, 2 and 1 tiles of 8 instances', () => {
  const st: CountedStatement = { box: [[0, 3], [0, 7]], time: { coefficients: [1, 0], constant: 0 }, space: { coefficients: [0, 1], constant: 0 } };
  // w = 0: (0, 0); w = 1: (0, 1) and (1, 0), one per thread; w = 2: (1, 1). 32 instances over 8 + 8 + 8.
  expect(wavefrontBalance([st], 2, 4, 2)).toEqual({ bound: 32 / 24, wavefronts: 3, most: 2 });
  // One thread runs every column: no gain.
  expect(wavefrontBalance([st], 2, 4, 1)!.bound).toBe(1);
  // An inner counter the members do not use multiplies each point's instances.
  const deeper: CountedStatement = { ...st, box: [...st.box, [0, 4]], time: { coefficients: [1, 0, 0], constant: 0 }, space: { coefficients: [0, 1, 0], constant: 0 } };
  expect(wavefrontBalance([deeper], 2, 4, 2)).toEqual({ bound: 32 / 24, wavefronts: 3, most: 2 });
});

test('heat-3d at LARGE: 264 wavefronts at height 4, and height 6 shares out better on two threads', () => {
  // B = f(A) at [t, 2t + i, ..], A = f(B) at [t, 2t + i + 1, ..]; counters t, i, j, k from 0.
  const box: [number, number][] = [[0, 499], [0, 117], [0, 117], [0, 117]];
  const statements: CountedStatement[] = [0, 1].map((shift) => ({ box, time: { coefficients: [1, 0, 0, 0], constant: 0 }, space: { coefficients: [2, 1, 0, 0], constant: shift } }));
  const four = wavefrontBalance(statements, 4, 8, 2)!;
  expect(four.wavefronts).toBe(264);
  expect(four.most).toBe(8);
  const six = wavefrontBalance(statements, 6, 8, 2)!;
  expect(six.bound).toBeGreaterThan(four.bound * 1.03);
  // Heights 4..8 whose data fits (here: up to 7): 6 is the best counted.
  expect(wavefrontHeight(statements, 4, 8, 2, (h) => h <= 7)!.height).toBe(6);
  // One thread: nothing to count for.
  expect(wavefrontHeight(statements, 4, 8, 1, () => true)).toBeUndefined();
});

// Which access relations the dependences take as "anywhere in the array" (polyhedral/dependences.ts).
import { wrapsAround } from '../../polyhedral/dependences';

const rel = (text: string) => ({ toStr: () => text });

test('modulo 2^32 and divisions by 2^16 or more wrap; small strides and plain relations do not', () => {
  expect(wrapsAround(rel('[p_0] -> { S[i0] -> A[o0] : (4 + 3i0) mod 4294967296 = o0 and 0 <= o0 <= 4294967295 }'))).toBe(true);
  expect(wrapsAround(rel('[p_0] -> { S[i0] -> A[o0] : o0 = 65536*floor((i0)/65536) }'))).toBe(true);
  expect(wrapsAround(rel('[p_0] -> { S[i0] -> A[o0] : (1 + i0 + o0) mod 2 = 0 and 0 <= o0 <= 3 + i0 }'))).toBe(false);
  expect(wrapsAround(rel('[p_0] -> { S[i0] -> A[o0 = 2*floor((p_0)/2) + i0] }'))).toBe(false);
  expect(wrapsAround(rel('{ S[i0] -> A[i0] }'))).toBe(false);
});

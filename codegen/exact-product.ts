// Products in the run-time check's i128 arithmetic that cannot wrap unnoticed.
//
// The check computes with sign-extended values of at most 64 bits, so a sum or a product
// of two of them is exact in i128. A third factor is not: n1 * n2 * n3 of 64-bit sizes
// reaches 2^189, and a wrapped product could make a failing condition hold. So each
// further product is taken only with a guard that both operands lie within ±2^63 (then
// the product is below 2^126 in magnitude, exact); the guards join the check, which
// fails when one does. A guard fails only for values no real loop nest reaches (offsets
// or sizes beyond 2^63).
import { type IrBuilder, constInt, intType, type Value } from '../ir';

const i128 = intType(128);
const limit = 1n << 63n;

/** `x * y` in i128, pushing to `guards` the i1 that says it is exact. */
export function guardedMul(b: IrBuilder, x: Value, y: Value, guards: Value[]): Value {
  const within = (v: Value): Value => b.and(b.icmp('sge', v, constInt(i128, -limit)), b.icmp('sle', v, constInt(i128, limit)));
  guards.push(b.and(within(x), within(y)));
  return b.mul(x, y);
}

/** The product of `factors` (each exact in i128 and at most 64 bits wide): the first two exactly, the rest guarded. */
export function exactProduct(b: IrBuilder, factors: readonly Value[], guards: Value[]): Value {
  let acc = factors[0]!;
  for (let k = 1; k < factors.length; k++) acc = k === 1 ? b.mul(acc, factors[k]!) : guardedMul(b, acc, factors[k]!, guards);
  return acc;
}

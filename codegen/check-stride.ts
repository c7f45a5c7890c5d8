// The stride test of an alias pair (polyhedral/lmad.ts's `StrideTest`) as IR and as C.
// Every address of A is firstA plus a multiple of S, every address of B firstB plus one:
// with d = (firstB - firstA) mod S in [0, S), A's element [x, x + eA) and B's [y, y + eB)
// never meet when eA <= d <= S - eB. Sound for any S that divides every byte stride, so it
// is or-ed with the range test. In i128, like the rest of the check: the first addresses are
// 64-bit pointers plus offsets the check already computes exactly, S is a small constant,
// and the sizes whose product must be a multiple of m are reduced modulo m one at a time.
import { IrBuilder, constInt, intType, type Value } from '../ir';
import type { StrideTest } from '../polyhedral/lmad';
import type { ScopArray } from '../polyhedral/model';

const i128 = intType(128);

export interface StrideOperands {
  readonly a: ScopArray;
  readonly b: ScopArray;
  /** The first byte addresses, as IR (i128) and as C. */
  readonly firstA: Value;
  readonly firstB: Value;
  readonly cFirstA: string;
  readonly cFirstB: string;
}

export function emitStrideTest(t: StrideTest, o: StrideOperands, sizesOf: (a: ScopArray) => readonly Value[], b: IrBuilder): Value {
  const s = constInt(i128, t.modulus);
  const rem = b.binary('srem', b.sub(o.firstB, o.firstA), s);
  const d = b.binary('srem', b.add(rem, s), s);
  let ok = b.and(b.icmp('sge', d, constInt(i128, BigInt(o.a.elementBytes))), b.icmp('sle', d, constInt(i128, t.modulus - BigInt(o.b.elementBytes))));
  for (const div of t.divisible) {
    const m = constInt(i128, div.modulus);
    let r: Value = constInt(i128, 1);
    for (const k of div.sizes) r = b.binary('srem', b.mul(r, b.binary('srem', sizesOf(div.array)[k]!, m)), m);
    ok = b.and(ok, b.icmp('eq', r, constInt(i128, 0)));
  }
  return ok;
}

export function strideTestC(t: StrideTest, o: StrideOperands): string {
  const s = t.modulus;
  const d = `(((${o.cFirstB}) - (${o.cFirstA})) % ${s} + ${s}) % ${s}`;
  const out = [`${d} >= ${o.a.elementBytes}`, `${d} <= ${s - BigInt(o.b.elementBytes)}`];
  for (const div of t.divisible) out.push(`(${div.sizes.map((k) => div.array.shape[k + 1]).join(' * ')}) % ${div.modulus} == 0`);
  return out.join(' && ');
}

// From a linearized offset and a guessed shape to per-dimension subscripts
// (Grosser et al., ICS 2015, §3.1 "divide from the innermost size outward",
// §4 Algorithm 3), and the piecewise subscripts of §3.3.
//
// Dividing the offset by the innermost size gives the innermost subscript as the
// remainder; the quotient is divided by the next size, and so on; the last
// quotient is the outermost subscript. The result is a candidate only: it is
// right exactly when 0 <= f_i < d_i for i >= 1 (validity.ts checks that).
//
// §3.3: when a part of the offset that no counter multiplies is a multiple of a
// size (A[0][0][M-1] is `M - 1`, which divides as [0][1][-1]), the division puts
// it one row too far. Such an access gets the pieces M_t, t in [-k, k]:
// subscript_{i-1} + t, subscript_i - t·d_i; each piece holds where its subscripts
// are in bounds, and the domain of the statement keeps only the pieces it meets.
import { type Poly, add, constant, divideByScaledMonomial, divideByShiftedSymbol, isAffine, mul, sub, withoutSymbols, isZero } from './poly';
import { type DimensionSize, sizeToPoly } from './shape';

export function divideBySize(p: Poly, d: DimensionSize): { quotient: Poly; remainder: Poly } {
  if (d.alpha === 0n) return divideByScaledMonomial(p, d.beta, d.monomial);
  if (d.beta !== 1n || d.monomial.length !== 1) throw new Error('divideBySize: sizes β·P + α with β ≠ 1 or a product P are not formed');
  return divideByShiftedSymbol(p, d.monomial[0]!, d.alpha);
}

export interface DividedOffset {
  /** Outermost first; one more than the sizes. */
  readonly subscripts: readonly Poly[];
  /**
   * For each inner dimension (index i ≥ 1 of `subscripts`): whether the quotient
   * taken at that size got a term no counter multiplies (a §3.3 subscript
   * that contains the size), so the dimension needs the pieces M_t.
   */
  readonly needsPieces: readonly boolean[];
}

/** Divides innermost outward; undefined when a subscript is not affine (the shape does not fit this access). */
export function divideOffset(offset: Poly, sizes: readonly DimensionSize[], counters: ReadonlySet<string>): DividedOffset | undefined {
  const subscripts: Poly[] = [];
  const needsPieces: boolean[] = [];
  let rest = offset;
  for (let i = sizes.length - 1; i >= 0; i--) {
    const { quotient, remainder } = divideBySize(rest, sizes[i]!);
    subscripts.unshift(remainder);
    needsPieces.unshift(!isZero(withoutSymbols(quotient, counters)));
    rest = quotient;
  }
  subscripts.unshift(rest);
  if (!subscripts.every(isAffine)) return undefined;
  return { subscripts, needsPieces };
}

/** One piece of a §3.3 piecewise access: the shifts t_i (one per inner dimension) and its subscripts. */
export interface SubscriptPiece {
  readonly shifts: readonly bigint[];
  /** Outermost first; affine in counters and parameters. */
  readonly subscripts: readonly Poly[];
}

/**
 * The candidate pieces of an access: the plain division (all t = 0) and, for the
 * dimensions that need it, every t in [-k, k]. A shift by a size that is a product
 * of parameters (t·n·m) has no counter in it: isl and the model read the product
 * as a parameter of its own.
 */
export function subscriptPieces(divided: DividedOffset, sizes: readonly DimensionSize[], k: number): SubscriptPiece[] {
  const choices = sizes.map((_, i) => {
    if (!divided.needsPieces[i]) return [0n];
    const ts: bigint[] = [0n];
    for (let t = 1; t <= k; t++) ts.push(BigInt(-t), BigInt(t));
    return ts;
  });
  const pieces: SubscriptPiece[] = [];
  const walk = (i: number, shifts: bigint[]): void => {
    if (i === sizes.length) {
      pieces.push({ shifts, subscripts: shiftSubscripts(divided.subscripts, sizes, shifts) });
      return;
    }
    for (const t of choices[i]!) walk(i + 1, [...shifts, t]);
  };
  walk(0, []);
  return pieces;
}

/** subscript_i - t_i·d_i + t_{i+1} (with t_0 = 0 outside, nothing added past the innermost). */
function shiftSubscripts(subscripts: readonly Poly[], sizes: readonly DimensionSize[], shifts: readonly bigint[]): Poly[] {
  return subscripts.map((f, dim) => {
    let out = f;
    if (dim >= 1) out = sub(out, mul(constant(shifts[dim - 1]!), sizeToPoly(sizes[dim - 1]!)));
    if (dim < sizes.length) out = add(out, constant(shifts[dim]!));
    return out;
  });
}

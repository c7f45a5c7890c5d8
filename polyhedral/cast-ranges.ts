// The no-wrap condition of a cast that delinearization read through.
//
// -O3 writes the 32-bit subscript arithmetic of flat `int`-subscript kernels as
// `sext i32 (n*i + j - 1)` with no nsw, so the polynomial n*i + j - 1 of the
// subscript is exact only where that 32-bit value does not wrap. The value is
// affine in the counters with parametric coefficients (n*i), which isl cannot
// say; but for fixed parameters it is affine, so over the statement's loops its
// extremes are at the corners of the loop nest: each counter at 0 or at its
// backedge-taken count (inner counts may use outer counters; the corners' convex
// hull still contains every iteration, and branch conditions only remove
// iterations). So "within the range at every corner" is a sufficient condition,
// a polynomial in the parameters: products of parameters become parameters of
// their own (`n * n`), exact in the run-time check's i128 arithmetic.
//
//   jacobi-2d, A[i*n + j - 1] with 1 <= i, j <= n-2:
//     -2^31 <= n + n*i0 + i1 <= 2^31 - 1 at the corners (i0, i1) in {0, n-3}^2
//     → isl: p_1_x_p_1 - p_1 - 3 <= 2147483647 (the other corners are implied)
import { type Scev, type ScevLoop, ScevKind, loopsOf } from '../analysis/scev';
import {
  type Atom, type CastSeenThrough, type Polynomial, addPolynomials, constantPolynomial, multiplyPolynomials, toPolynomial,
} from '../analysis/polynomial';
import type { ScopLoop } from '../analysis/scop-detection-types';
import type { IslExpression, ParameterTable } from './affine';

/** Translates a loop-invariant expression for isl; its checks (signs, wraps) are the caller's to keep. */
export type InvariantTranslator = (e: Scev) => IslExpression;

/** The most corners we try: a cast over more than 6 counters stays unread (the array linear). */
const maxCorners = 64;

/**
 * isl violations (over the parameters only; the caller states them where the statement
 * runs) such that none holding means `cast`'s operand stays in its range at every
 * iteration of `loops` (the statement's loops, outermost first). Undefined when the
 * operand is not affine in the counters for fixed parameters (a product of counters,
 * an opaque term, a counter of a loop outside `loops`): the cast cannot be read through.
 */
export function castRangeViolations(
  cast: CastSeenThrough, loops: readonly ScopLoop[], params: ParameterTable, translate: InvariantTranslator,
): string[] | undefined {
  const bits = BigInt(cast.range.bits);
  const min = cast.range.signed ? -(1n << (bits - 1n)) : 0n;
  const max = cast.range.signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
  const corners = cornerValues(readInvariantCasts(cast.operand, translate), loops, translate);
  if (corners === undefined) return undefined;
  const out = new Set<string>();
  for (const corner of corners) {
    const text = parameterText(corner, params, translate);
    if (text === undefined) return undefined;
    out.add(`${text} < ${min} or ${text} > ${max}`);
  }
  return [...out];
}

/** The operand's value at each corner of the loop nest (counter-free polynomials), or undefined. */
function cornerValues(operand: Polynomial, loops: readonly ScopLoop[], translate: InvariantTranslator): Polynomial[] | undefined {
  if (!affineInCounters(operand)) return undefined;
  let values = [operand];
  // Innermost first: a count may name outer counters, replaced when their turn comes.
  for (let d = loops.length - 1; d >= 0; d--) {
    const loop = loops[d]!.loop;
    if (!values.some((v) => mentions(v, loop))) continue;
    const count = readInvariantCasts(toPolynomial(loops[d]!.backedgeTakenCount), translate);
    if (!affineInCounters(count)) return undefined;
    values = values.flatMap((v) => (mentions(v, loop) ? [substitute(v, loop, constantPolynomial(0n)), substitute(v, loop, count)] : [v]));
    if (values.length > maxCorners || !values.every(affineInCounters)) return undefined;
  }
  return values.every((v) => v.terms.every((t) => t.factors.every((a) => a.kind === 'parameter'))) ? values : undefined;
}

/** No term with two counters and no opaque part: affine in the counters once the parameters are fixed. */
function affineInCounters(p: Polynomial): boolean {
  return p.opaque.length === 0 && p.terms.every((t) => t.factors.filter((a) => a.kind === 'counter').length <= 1);
}

function mentions(p: Polynomial, loop: ScevLoop): boolean {
  return p.terms.some((t) => t.factors.some((a) => a.kind === 'counter' && a.loop === loop));
}

function substitute(p: Polynomial, loop: ScevLoop, value: Polynomial): Polynomial {
  let out = constantPolynomial(0n);
  for (const t of p.terms) {
    let term = constantPolynomial(t.coefficient);
    for (const a of t.factors) term = multiplyPolynomials(term, a.kind === 'counter' && a.loop === loop ? value : atom(a));
    out = addPolynomials(out, term);
  }
  return out;
}

function atom(a: Atom): Polynomial {
  return { terms: [{ coefficient: 1n, factors: [a] }], opaque: [] };
}

/**
 * Parameters that are casts of invariant sums (`zext i32 (-1 + %n)`, the counts of
 * -O3's loops) read as their operands, so that `n * zext(n - 1)` becomes `n*n - n` and
 * isl sees one product of parameters. Each is exact under the checks its translation
 * makes (`0 <= -1 + n` for the zext), which `translate` hands to the caller.
 */
function readInvariantCasts(p: Polynomial, translate: InvariantTranslator): Polynomial {
  const through = (e: Scev): Polynomial | undefined => {
    if (e.kind !== ScevKind.SignExtend && e.kind !== ScevKind.ZeroExtend && e.kind !== ScevKind.Truncate) return undefined;
    if (loopsOf(e).length > 0) return undefined;
    translate(e);
    return toPolynomial(e.operand, through);
  };
  let out = constantPolynomial(0n);
  for (const t of p.terms) {
    let term = constantPolynomial(t.coefficient);
    for (const a of t.factors) term = multiplyPolynomials(term, a.kind === 'parameter' ? toPolynomial(a.expr, through) : atom(a));
    out = addPolynomials(out, term);
  }
  return { terms: out.terms, opaque: [...out.opaque, ...p.opaque] };
}

/**
 * A counter-free polynomial as isl text: one parameter alone as the translator says it,
 * a product of parameters as a parameter of its own, wide enough for the exact product.
 */
function parameterText(p: Polynomial, params: ParameterTable, translate: InvariantTranslator): string | undefined {
  if (p.opaque.length > 0) return undefined;
  const terms = p.terms.map((t) => {
    const factors = t.factors.map((a) => (a as Extract<Atom, { kind: 'parameter' }>).expr);
    let body: string;
    if (factors.length === 0) return `${t.coefficient}`;
    if (factors.length === 1) body = translate(factors[0]!).text;
    else {
      for (const f of factors) translate(f);
      body = params.getProduct(factors, factors.reduce((s, f) => s + f.bits, 0)).name;
    }
    return t.coefficient === 1n ? body : `${t.coefficient} * ${body}`;
  });
  return terms.length === 0 ? '0' : `(${terms.join(' + ')})`;
}

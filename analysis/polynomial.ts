// Expanding a scalar-evolution expression into a polynomial: a sum of integer
// coefficients times products of atoms, where an atom is a loop counter (the
// iteration number of a loop) or a parameter (a loop-invariant value, or an
// expression the algebra keeps opaque such as `(zext i32 %n to i64)`).
//
// This is the form delinearization works on (Grosser et al., ICS 2015, §3.1):
// "expand the subscript polynomial into a sum of products; collect the
// parametric terms that multiply loop counters". Equal values expand to equal
// polynomials, so `polynomialKey` is a canonical key.
import { type Scev, type ScevAddRec, type ScevLoop, ScevKind, compareScev, printScev, loopsOf } from './scev';

/** A loop counter (`i` of loop L counts 0, 1, … per entry of L) or a parameter expression. */
export type Atom =
  | { readonly kind: 'counter'; readonly loop: ScevLoop }
  | { readonly kind: 'parameter'; readonly expr: Scev };

/** A product of atoms (with repetition), sorted canonically; the empty product is 1. */
export type Monomial = readonly Atom[];

export interface Term {
  readonly coefficient: bigint;
  readonly factors: Monomial;
}

/** A sum of terms, each monomial at most once, sorted by `compareMonomials`; no zero coefficients. */
export interface Polynomial {
  readonly terms: readonly Term[];
  /**
   * Expressions that could not be expanded exactly (a recurrence of order two
   * or more, an opaque value that varies in a loop). Empty when the polynomial
   * is exact in parameters and counters.
   */
  readonly opaque: readonly Scev[];
}

export function compareAtoms(a: Atom, b: Atom): number {
  if (a.kind !== b.kind) return a.kind === 'parameter' ? -1 : 1;
  if (a.kind === 'counter') {
    const bl = (b as { loop: ScevLoop }).loop;
    return a.loop.depth - bl.depth || a.loop.id - bl.id;
  }
  return compareScev(a.expr, (b as { expr: Scev }).expr);
}

export function compareMonomials(a: Monomial, b: Monomial): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) {
    const c = compareAtoms(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return 0;
}

function atomKey(a: Atom): string {
  return a.kind === 'counter' ? `L${a.loop.id}` : `P${a.expr.id}`;
}

function monomialKey(m: Monomial): string {
  return m.map(atomKey).join('*');
}

function normalize(terms: Iterable<Term>, opaque: readonly Scev[]): Polynomial {
  const byKey = new Map<string, Term>();
  for (const t of terms) {
    const k = monomialKey(t.factors);
    const prev = byKey.get(k);
    byKey.set(k, { coefficient: (prev?.coefficient ?? 0n) + t.coefficient, factors: t.factors });
  }
  const out = [...byKey.values()].filter((t) => t.coefficient !== 0n).sort((a, b) => compareMonomials(a.factors, b.factors));
  return { terms: out, opaque: [...new Set(opaque)] };
}

export function constantPolynomial(c: bigint): Polynomial {
  return normalize([{ coefficient: c, factors: [] }], []);
}

export function addPolynomials(a: Polynomial, b: Polynomial): Polynomial {
  return normalize([...a.terms, ...b.terms], [...a.opaque, ...b.opaque]);
}

export function scalePolynomial(a: Polynomial, c: bigint): Polynomial {
  return normalize(a.terms.map((t) => ({ coefficient: t.coefficient * c, factors: t.factors })), a.opaque);
}

export function multiplyPolynomials(a: Polynomial, b: Polynomial): Polynomial {
  const terms: Term[] = [];
  for (const x of a.terms) {
    for (const y of b.terms) {
      terms.push({ coefficient: x.coefficient * y.coefficient, factors: [...x.factors, ...y.factors].sort(compareAtoms) });
    }
  }
  return normalize(terms, [...a.opaque, ...b.opaque]);
}

function atomPolynomial(atom: Atom, opaque: readonly Scev[] = []): Polynomial {
  return { terms: [{ coefficient: 1n, factors: [atom] }], opaque };
}

/**
 * Expands `s` into a polynomial over loop counters and parameters. Integer
 * widths are ignored: the result is exact when the IR's no-wrap facts hold
 * (what a SCoP assumes anyway). `hook` may expand a node its own way (return
 * undefined to use the default), e.g. to see through casts.
 */
export function toPolynomial(s: Scev, hook?: (s: Scev) => Polynomial | undefined): Polynomial {
  const own = hook?.(s);
  if (own) return own;
  const go = (x: Scev): Polynomial => toPolynomial(x, hook);
  switch (s.kind) {
    case ScevKind.Constant:
      return constantPolynomial(s.value);
    case ScevKind.Add:
      return s.operands.map(go).reduce(addPolynomials);
    case ScevKind.Mul:
      return s.operands.map(go).reduce(multiplyPolynomials);
    case ScevKind.AddRec:
      return addRecPolynomial(s, go);
    case ScevKind.SignExtend:
    case ScevKind.ZeroExtend:
    case ScevKind.Truncate:
      // An extension of something that does not vary is a parameter (as in Polly);
      // one of a varying value we could not push the extension through is opaque.
      return atomPolynomial({ kind: 'parameter', expr: s }, loopsOf(s).length === 0 ? [] : [s]);
    default:
      return atomPolynomial({ kind: 'parameter', expr: s }, loopsOf(s).length === 0 && s.kind !== ScevKind.CouldNotCompute ? [] : [s]);
  }
}

/** A sign or zero extension or truncation that `toPolynomialThroughCasts` read as its operand. */
export interface CastSeenThrough {
  readonly cast: Scev & { readonly kind: ScevKind.SignExtend | ScevKind.ZeroExtend | ScevKind.Truncate };
  /** The operand's polynomial: the expansion is exact where it lies in the range of `range`. */
  readonly operand: Polynomial;
  /**
   * The integer type the operand must fit for the cast to be the identity: the operand's own
   * type, signed for sext, unsigned for zext; for trunc the result's type, signed.
   */
  readonly range: { readonly bits: number; readonly signed: boolean };
}

/**
 * Expands `s` reading every `sext`/`zext`/`trunc` of a value that varies in a loop as its
 * operand, as Polly's SCEVAffinator does (detection's "casts are transparent"). The result
 * is exact only where each listed cast's operand fits its range: the model must assume that
 * (a run-time check), as Polly records its wrapping assumptions. A loop-invariant cast stays
 * a parameter (no assumption needed). `hook` as for `toPolynomial`, consulted first.
 *
 * The A[i*n + j-1] of flat int-subscript kernels after -O3 is `sext i32 {{%n,+,%n}<i>,+,1}<j>`
 * (no nsw on the 32-bit value, so no fold is valid); this reads it as n + n*i + j with the
 * assumption -2^31 <= n + n*i + j <= 2^31 - 1.
 */
export function toPolynomialThroughCasts(s: Scev, hook?: (s: Scev) => Polynomial | undefined): { polynomial: Polynomial; casts: CastSeenThrough[] } {
  const casts: CastSeenThrough[] = [];
  const seen = new Set<Scev>();
  const through = (e: Scev): Polynomial | undefined => {
    const own = hook?.(e);
    if (own) return own;
    if ((e.kind !== ScevKind.SignExtend && e.kind !== ScevKind.ZeroExtend && e.kind !== ScevKind.Truncate) || loopsOf(e).length === 0) return undefined;
    const operand = toPolynomial(e.operand, through);
    if (!seen.has(e)) {
      seen.add(e);
      const range = e.kind === ScevKind.Truncate ? { bits: e.bits, signed: true } : { bits: e.operand.bits, signed: e.kind === ScevKind.SignExtend };
      casts.push({ cast: e, operand, range });
    }
    return operand;
  };
  return { polynomial: toPolynomial(s, through), casts };
}

function addRecPolynomial(s: ScevAddRec, go: (s: Scev) => Polynomial): Polynomial {
  if (s.operands.length !== 2) return atomPolynomial({ kind: 'parameter', expr: s }, [s]);
  const start = go(s.operands[0]!);
  const step = go(s.operands[1]!);
  return addPolynomials(start, multiplyPolynomials(step, atomPolynomial({ kind: 'counter', loop: s.loop })));
}

/** A canonical string for the polynomial: equal values, equal keys. */
export function polynomialKey(p: Polynomial): string {
  return p.terms.map((t) => `${t.coefficient}:${monomialKey(t.factors)}`).join('|') + (p.opaque.length ? `#${p.opaque.map((o) => o.id).join(',')}` : '');
}

/** True when every term is a constant times at most one counter or a product of parameters (Polly's "affine"). */
export function isAffinePolynomial(p: Polynomial): boolean {
  if (p.opaque.length > 0) return false;
  return p.terms.every((t) => {
    const counters = t.factors.filter((a) => a.kind === 'counter').length;
    const params = t.factors.length - counters;
    // Affine: c, c*p, c*i. A product of parameters (c*p*q) is affine in the
    // parameters only if we treat the product as one parameter, which Polly does
    // not do by default; we report it as not affine (delinearization may recover it).
    return (counters === 0 && params <= 1) || (counters === 1 && params === 0);
  });
}

/** The parametric factors multiplying each loop counter (ICS'15 §3.1 "terms"): for `8*n*m*i + 8*m*j + 8*k`, [[n,m],[m],[]] with their coefficients. */
export function counterCoefficients(p: Polynomial): Map<ScevLoop, Term[]> {
  const out = new Map<ScevLoop, Term[]>();
  for (const t of p.terms) {
    const counters = t.factors.filter((a): a is Extract<Atom, { kind: 'counter' }> => a.kind === 'counter');
    if (counters.length !== 1) continue;
    const loop = counters[0]!.loop;
    const params = t.factors.filter((a) => a.kind === 'parameter');
    const list = out.get(loop) ?? [];
    list.push({ coefficient: t.coefficient, factors: params });
    out.set(loop, list);
  }
  return out;
}

function atomText(a: Atom): string {
  return a.kind === 'counter' ? `i${a.loop.headerName}` : printScev(a.expr);
}

/** `8 * %n * i%for.body + 8 * i%for.inner + -8`: constant term last, for people and golden tests. */
export function printPolynomial(p: Polynomial): string {
  if (p.terms.length === 0) return '0';
  const ordered = [...p.terms].sort((a, b) => (a.factors.length === 0 ? 1 : 0) - (b.factors.length === 0 ? 1 : 0) || -compareMonomials(a.factors, b.factors));
  return ordered.map((t) => (t.factors.length === 0 ? `${t.coefficient}` : [t.coefficient === 1n ? [] : [`${t.coefficient}`], t.factors.map(atomText)].flat().join(' * '))).join(' + ');
}

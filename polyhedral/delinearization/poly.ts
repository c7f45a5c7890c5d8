// Multivariate polynomials with bigint coefficients over named symbols (loop
// counters and parameters): the algebra delinearization works in (Grosser et al.,
// ICS 2015, §3.1 "expand into a sum of products"). Deliberately independent of
// the scalar-evolution types: `scev-adapter.ts` converts, tests write polynomials
// as text (`parsePoly('i*n1*n2 + o0*n1*n2 + j*n2 + k')`).
//
// Values are immutable; every operation returns a new polynomial in canonical
// form (no zero coefficients, one term per monomial), so `polyKey` compares.

/** One product: a coefficient times symbols (sorted, repeated for powers; empty = constant). */
export interface PolyTerm {
  readonly coefficient: bigint;
  readonly symbols: readonly string[];
}

/** A sum of terms, keyed by the monomial (`n1*n2`, `` for the constant). */
export type Poly = ReadonlyMap<string, PolyTerm>;

const monomialKey = (symbols: readonly string[]): string => symbols.join('*');

export function polyFromTerms(terms: Iterable<PolyTerm>): Poly {
  const out = new Map<string, PolyTerm>();
  for (const t of terms) {
    if (t.coefficient === 0n) continue;
    const symbols = [...t.symbols].sort();
    const key = monomialKey(symbols);
    const c = (out.get(key)?.coefficient ?? 0n) + t.coefficient;
    if (c === 0n) out.delete(key);
    else out.set(key, { coefficient: c, symbols });
  }
  return out;
}

export const ZERO: Poly = new Map();
export const constant = (c: bigint | number): Poly => polyFromTerms([{ coefficient: BigInt(c), symbols: [] }]);
export const symbol = (name: string): Poly => polyFromTerms([{ coefficient: 1n, symbols: [name] }]);

export const add = (a: Poly, b: Poly): Poly => polyFromTerms([...a.values(), ...b.values()]);
export const scale = (a: Poly, c: bigint): Poly => polyFromTerms([...a.values()].map((t) => ({ coefficient: t.coefficient * c, symbols: t.symbols })));
export const sub = (a: Poly, b: Poly): Poly => add(a, scale(b, -1n));

export function mul(a: Poly, b: Poly): Poly {
  const terms: PolyTerm[] = [];
  for (const x of a.values()) for (const y of b.values()) terms.push({ coefficient: x.coefficient * y.coefficient, symbols: [...x.symbols, ...y.symbols] });
  return polyFromTerms(terms);
}

export const isZero = (p: Poly): boolean => p.size === 0;
export const polyEquals = (a: Poly, b: Poly): boolean => isZero(sub(a, b));

/** The constant term. */
export const constantTerm = (p: Poly): bigint => p.get('')?.coefficient ?? 0n;

/** The value when it is a constant, else undefined. */
export function asConstant(p: Poly): bigint | undefined {
  if (p.size === 0) return 0n;
  return p.size === 1 && p.has('') ? constantTerm(p) : undefined;
}

/** Every symbol the polynomial mentions, sorted. */
export function symbolsOf(p: Poly): string[] {
  const s = new Set<string>();
  for (const t of p.values()) for (const v of t.symbols) s.add(v);
  return [...s].sort();
}

/** The highest total degree of a term (0 for constants and zero). */
export const degree = (p: Poly): number => Math.max(0, ...[...p.values()].map((t) => t.symbols.length));

/** Affine: every term has at most one symbol. */
export const isAffine = (p: Poly): boolean => [...p.values()].every((t) => t.symbols.length <= 1);

/** Replaces `name` by `value` everywhere. */
export function substitute(p: Poly, name: string, value: Poly): Poly {
  let out: Poly = ZERO;
  for (const t of p.values()) {
    let term: Poly = polyFromTerms([{ coefficient: t.coefficient, symbols: t.symbols.filter((s) => s !== name) }]);
    for (const s of t.symbols) if (s === name) term = mul(term, value);
    out = add(out, term);
  }
  return out;
}

/**
 * Splits p into (the polynomial multiplying `counter`, the rest): p = c * counter + rest,
 * where `rest` has no term linear in `counter`. Terms with `counter` squared stay in `rest`
 * (the caller rejects them as non-affine later).
 */
export function splitByCounter(p: Poly, counter: string): { coefficient: Poly; rest: Poly } {
  const coefficient: PolyTerm[] = [];
  const rest: PolyTerm[] = [];
  for (const t of p.values()) {
    const n = t.symbols.filter((s) => s === counter).length;
    if (n === 1) coefficient.push({ coefficient: t.coefficient, symbols: t.symbols.filter((s) => s !== counter) });
    else rest.push(t);
  }
  return { coefficient: polyFromTerms(coefficient), rest: polyFromTerms(rest) };
}

/** Removes every term that mentions one of `symbols` (e.g. the loop counters). */
export const withoutSymbols = (p: Poly, symbols: ReadonlySet<string>): Poly =>
  polyFromTerms([...p.values()].filter((t) => !t.symbols.some((s) => symbols.has(s))));

/** Keeps only the terms that mention one of `symbols`. */
export const onlyWithSymbols = (p: Poly, symbols: ReadonlySet<string>): Poly =>
  polyFromTerms([...p.values()].filter((t) => t.symbols.some((s) => symbols.has(s))));

export function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** gcd of all coefficients (0 for the zero polynomial). */
export const contentOf = (p: Poly): bigint => [...p.values()].reduce((g, t) => gcd(g, t.coefficient), 0n);

/** True when multiset `small` ⊆ multiset `big` (both sorted). */
export function monomialDivides(small: readonly string[], big: readonly string[]): boolean {
  return monomialQuotient(big, small) !== undefined;
}

/** big / small as a monomial, or undefined when small does not divide big (both sorted). */
export function monomialQuotient(big: readonly string[], small: readonly string[]): string[] | undefined {
  const rest = [...big];
  for (const s of small) {
    const at = rest.indexOf(s);
    if (at < 0) return undefined;
    rest.splice(at, 1);
  }
  return rest;
}

/**
 * Division by a dimension size `beta * m` (m a monomial over parameters):
 * a term goes to the quotient when m divides its monomial and beta its
 * coefficient; everything else is the remainder. p = q * beta*m + r.
 */
export function divideByScaledMonomial(p: Poly, beta: bigint, m: readonly string[]): { quotient: Poly; remainder: Poly } {
  const q: PolyTerm[] = [];
  const r: PolyTerm[] = [];
  for (const t of p.values()) {
    const rest = monomialQuotient(t.symbols, m);
    if (rest !== undefined && t.coefficient % beta === 0n) q.push({ coefficient: t.coefficient / beta, symbols: rest });
    else r.push(t);
  }
  return { quotient: polyFromTerms(q), remainder: polyFromTerms(r) };
}

/**
 * Exact division by `P + alpha` (P one symbol), as polynomials in P:
 * the remainder is p with P := -alpha (it has no P), the quotient (p - r)/(P + alpha).
 */
export function divideByShiftedSymbol(p: Poly, name: string, alpha: bigint): { quotient: Poly; remainder: Poly } {
  let rest = p;
  let quotient: Poly = ZERO;
  const divisor = add(symbol(name), constant(alpha));
  for (;;) {
    // The term with the highest power of `name` goes first; synthetic division.
    let top: PolyTerm | undefined;
    let topPower = 0;
    for (const t of rest.values()) {
      const power = t.symbols.filter((s) => s === name).length;
      if (power > topPower) [top, topPower] = [t, power];
    }
    if (!top) return { quotient, remainder: rest };
    const at = top.symbols.indexOf(name);
    const q = polyFromTerms([{ coefficient: top.coefficient, symbols: [...top.symbols.slice(0, at), ...top.symbols.slice(at + 1)] }]);
    quotient = add(quotient, q);
    rest = sub(rest, mul(q, divisor));
  }
}

// ---- text ----

function termText(t: PolyTerm, first: boolean, times: string): string {
  const negative = t.coefficient < 0n;
  const magnitude = negative ? -t.coefficient : t.coefficient;
  const factors = t.symbols.length === 0 ? [`${magnitude}`] : [...(magnitude === 1n ? [] : [`${magnitude}`]), ...t.symbols];
  const body = factors.join(times);
  if (first) return negative ? `-${body}` : body;
  return negative ? ` - ${body}` : ` + ${body}`;
}

/** Terms by descending degree, then by name; the constant last. */
function orderedTerms(p: Poly): PolyTerm[] {
  return [...p.values()].sort((a, b) => b.symbols.length - a.symbols.length || monomialKey(a.symbols).localeCompare(monomialKey(b.symbols)));
}

/** `n1 * n2 - 1`, as C (and isl) read it. */
export function polyToString(p: Poly): string {
  if (p.size === 0) return '0';
  return orderedTerms(p)
    .map((t, i) => termText(t, i === 0, ' * '))
    .join('');
}

/** A canonical key: equal polynomials, equal keys. */
export const polyKey = (p: Poly): string => orderedTerms(p).map((t) => `${t.coefficient}:${monomialKey(t.symbols)}`).join('|');

/**
 * Reads `2*i*n + (j - 1)*(m + 2) - 3`: integers, identifiers (letters, digits,
 * `_`, `.`, `$`), + - * and parentheses. For tests and for people; throws on bad text.
 */
export function parsePoly(text: string): Poly {
  const tokens = text.match(/\d+|[A-Za-z_$][\w.$]*|[-+*()]|\S/g) ?? [];
  let at = 0;
  const peek = (): string | undefined => tokens[at];
  const expect = (t: string): void => {
    if (tokens[at] !== t) throw new Error(`parsePoly: expected '${t}' at token ${at} in '${text}'`);
    at++;
  };
  const sum = (): Poly => {
    let p = product();
    for (let t = peek(); t === '+' || t === '-'; t = peek()) {
      at++;
      p = t === '+' ? add(p, product()) : sub(p, product());
    }
    return p;
  };
  const product = (): Poly => {
    let p = factor();
    while (peek() === '*') {
      at++;
      p = mul(p, factor());
    }
    return p;
  };
  const factor = (): Poly => {
    const t = tokens[at++];
    if (t === undefined) throw new Error(`parsePoly: unexpected end of '${text}'`);
    if (t === '-') return scale(factor(), -1n);
    if (t === '(') {
      const p = sum();
      expect(')');
      return p;
    }
    if (/^\d+$/.test(t)) return constant(BigInt(t));
    if (/^[A-Za-z_$]/.test(t)) return symbol(t);
    throw new Error(`parsePoly: unexpected '${t}' in '${text}'`);
  };
  const p = sum();
  if (at !== tokens.length) throw new Error(`parsePoly: trailing '${tokens[at]}' in '${text}'`);
  return p;
}

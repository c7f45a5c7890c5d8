// Guessing array shapes from linearized offsets (Grosser et al., ICS 2015):
//   §3.1  sizes that are products of parameters, from the parametric terms that
//         multiply loop counters, ordered by number of factors and checked to
//         divide one another: [*][P1]…[Pn];
//   §3.2  one shape per base pointer, from the terms of all its accesses;
//   §3.4  sizes β·P, β the gcd of the coefficients in each dimension;
//   §4    sizes P + α (Algorithm 1): the counter coefficient of highest degree
//         is f0 · Π (Pi + αi); every order of its parameters is a candidate.
// Candidates are only guesses: `subscripts.ts` divides the offsets by them and
// `validity.ts` decides, over the iteration domains, whether they hold.
import { type Poly, type PolyTerm, gcd, monomialQuotient, splitByCounter, symbolsOf, mul, add, symbol, constant, polyEquals } from './poly';

/**
 * The size of one inner dimension: beta * Π monomial + alpha.
 * §3.1: beta 1, alpha 0; §3.4: beta > 1; §4: monomial is one parameter, alpha ≠ 0.
 */
export interface DimensionSize {
  readonly beta: bigint;
  /** Parameters, sorted, repeated for powers. */
  readonly monomial: readonly string[];
  readonly alpha: bigint;
}

export type ShapeMethod = '3.1' | '3.4' | '4';

/** A guessed shape: the sizes of the dimensions after the outermost (whose size is unknown, `*`). */
export interface ShapeCandidate {
  readonly sizes: readonly DimensionSize[];
  /** Which section of the paper produced it. */
  readonly method: ShapeMethod;
}

export function sizeToPoly(d: DimensionSize): Poly {
  let p: Poly = constant(d.beta);
  for (const s of d.monomial) p = mul(p, symbol(s));
  return add(p, constant(d.alpha));
}

export const shapeKey = (c: ShapeCandidate): string => c.sizes.map((d) => `${d.beta}*${d.monomial.join('*')}+${d.alpha}`).join(',');

/**
 * The coefficient polynomials of the loop counters in each offset: for
 * `i*n1*n2 + j*n2 + k + o0*n1*n2`, [n1*n2, n2, 1]. Zero coefficients are left out.
 */
export function counterCoefficients(offsets: readonly Poly[], counters: ReadonlySet<string>): Poly[] {
  const out: Poly[] = [];
  for (const p of offsets) {
    for (const c of symbolsOf(p)) {
      if (!counters.has(c)) continue;
      const { coefficient } = splitByCounter(p, c);
      if (coefficient.size > 0) out.push(coefficient);
    }
  }
  return out;
}

/** True when some term multiplies two counters (or a counter by itself): no shape makes that affine. */
export function hasCounterProducts(offsets: readonly Poly[], counters: ReadonlySet<string>): boolean {
  return offsets.some((p) => [...p.values()].some((t) => t.symbols.filter((s) => counters.has(s)).length > 1));
}

/**
 * §3.1 + §3.4: the shape whose sizes are products of parameters, or undefined
 * when the parametric terms do not form a divisibility chain.
 * Terms: the parameter parts of the products that multiply a counter, from all
 * accesses to one base (§3.2); constants are left out, duplicates merged.
 */
export function monomialShape(offsets: readonly Poly[], counters: ReadonlySet<string>): ShapeCandidate | undefined {
  const terms = new Map<string, readonly string[]>();
  for (const coefficient of counterCoefficients(offsets, counters)) {
    for (const t of coefficient.values()) {
      if (t.symbols.length === 0 || t.symbols.some((s) => counters.has(s))) continue;
      terms.set(t.symbols.join('*'), t.symbols);
    }
  }
  if (terms.size === 0) return undefined;
  // Fewest factors first: each term must divide the next (the strides of the dimensions).
  const chain = [...terms.values()].sort((a, b) => a.length - b.length);
  const monomials: (readonly string[])[] = [];
  let previous: readonly string[] = [];
  for (const m of chain) {
    const step = monomialQuotient(m, previous);
    if (step === undefined || step.length === 0) return undefined;
    monomials.unshift(step);
    previous = m;
  }
  const betas = dimensionGcds(offsets, monomials, counters);
  const sizes = monomials.map((monomial, i) => ({ beta: betas[i]!, monomial, alpha: 0n }));
  return { sizes, method: sizes.some((d) => d.beta !== 1n) ? '3.4' : '3.1' };
}

/**
 * §3.4: β of each inner dimension (outermost first). The stride of dimension i is
 * Π_{j>=i} βj·Pj; βi is the gcd of the coefficients of all terms whose parameters
 * are a multiple of Π_{j>=i} Pj, divided by the β of the dimensions inside it.
 * For `4*M*i + 2*M + 2*j + 1` (a [2N][2M] image, rows 2i and 2i+1) β = 2.
 */
function dimensionGcds(offsets: readonly Poly[], monomials: readonly (readonly string[])[], counters: ReadonlySet<string>): bigint[] {
  const betas: bigint[] = monomials.map(() => 1n);
  let stride: string[] = [];
  let inner = 1n;
  for (let i = monomials.length - 1; i >= 0; i--) {
    stride = [...stride, ...monomials[i]!].sort();
    let g = 0n;
    for (const p of offsets) {
      for (const t of p.values()) {
        const params = t.symbols.filter((s) => !counters.has(s));
        if (monomialQuotient(params, stride) !== undefined) g = gcd(g, t.coefficient);
      }
    }
    const beta = g !== 0n && g % inner === 0n ? g / inner : 1n;
    betas[i] = beta;
    inner *= beta;
  }
  return betas;
}

/**
 * §4, Algorithm 1: shapes [*][P1+α1]…[Pd+αd]. The counter coefficient of highest
 * degree must be f0 · Π(Pi + αi): its single top monomial names the size
 * parameters and f0; αi is the coefficient of top/Pi over f0, and the product
 * must expand back to the coefficient exactly (the consistency check). Every
 * order of the parameters is a candidate; dividing decides (Algorithm 2).
 */
export function shiftedShapes(offsets: readonly Poly[], counters: ReadonlySet<string>): ShapeCandidate[] {
  const coefficients = counterCoefficients(offsets, counters).filter((c) => symbolsOf(c).length > 0);
  const maxDegree = Math.max(0, ...coefficients.map(topDegree));
  if (maxDegree === 0) return [];
  const out: ShapeCandidate[] = [];
  const seen = new Set<string>();
  for (const coefficient of coefficients) {
    if (topDegree(coefficient) !== maxDegree) continue;
    const factored = factorShifted(coefficient);
    if (!factored) continue;
    for (const order of permutations(factored.parameters)) {
      const candidate: ShapeCandidate = {
        sizes: order.map((p) => ({ beta: 1n, monomial: [p], alpha: factored.alphas.get(p)! })),
        method: '4',
      };
      const key = shapeKey(candidate);
      if (!seen.has(key)) {
        seen.add(key);
        out.push(candidate);
      }
    }
  }
  return out;
}

const topDegree = (p: Poly): number => Math.max(0, ...[...p.values()].map((t) => t.symbols.length));

/** `f0 * Π(Pi + αi)` when the polynomial has that form (distinct Pi), else undefined. */
export function factorShifted(p: Poly): { f0: bigint; parameters: string[]; alphas: Map<string, bigint> } | undefined {
  const d = topDegree(p);
  const top: PolyTerm[] = [...p.values()].filter((t) => t.symbols.length === d);
  if (top.length !== 1) return undefined;
  const parameters = [...top[0]!.symbols];
  if (new Set(parameters).size !== parameters.length) return undefined;
  const f0 = top[0]!.coefficient;
  const alphas = new Map<string, bigint>();
  let product: Poly = constant(f0);
  for (const name of parameters) {
    const rest = parameters.filter((s) => s !== name).sort().join('*');
    const c = p.get(rest)?.coefficient ?? 0n;
    if (c % f0 !== 0n) return undefined;
    alphas.set(name, c / f0);
    product = mul(product, add(symbol(name), constant(c / f0)));
  }
  return polyEquals(product, p) ? { f0, parameters, alphas } : undefined;
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  const out: T[][] = [];
  items.forEach((x, i) => {
    for (const rest of permutations([...items.slice(0, i), ...items.slice(i + 1)])) out.push([x, ...rest]);
  });
  return out;
}

/**
 * All candidates for one base pointer, in the order they are tried: the §3.1/§3.4
 * shape first, then the §4 shapes (a §4 shape with every α = 0 is the §3.1 one
 * and is not repeated).
 */
export function candidateShapes(offsets: readonly Poly[], counters: ReadonlySet<string>): ShapeCandidate[] {
  if (hasCounterProducts(offsets, counters)) return [];
  const out: ShapeCandidate[] = [];
  const seen = new Set<string>();
  const monomial = monomialShape(offsets, counters);
  for (const c of [...(monomial ? [monomial] : []), ...shiftedShapes(offsets, counters)]) {
    const key = shapeKey(c);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(c);
  }
  return out;
}

// Validity of a delinearized access (Grosser et al., ICS 2015, §3.1 and §5):
// the multi-dimensional form describes the same memory as the linearized offset
// exactly when 0 <= f_i < d_i for every inner dimension i >= 1, at every point
// of the iteration domain. We compute, with isl, the parameters for which that
// holds, and simplify it against where the access runs at all.
import { type Ctx, type Set as IslSet, Set as IslSetClass, DimType, setConstraints } from 'isl-wasm';
import { type Poly, polyToString, polyFromTerms, sub, constant } from './poly';
import { type DimensionSize, sizeToPoly } from './shape';
import { tupleSetSpace } from '../relations';

/**
 * How our symbols read in isl: products of parameters become parameters of
 * their own (`n1*n2` → `n1_x_n2`, recorded in `products`) so that a size that
 * is a product (a §3.1 dimension of several parameters) stays affine for isl;
 * `definitions` spells out symbols that stand for quasi-affine expressions
 * (`q0` → `floor((i0)/2)`, the counter of an unrolled loop's remainder).
 */
export interface IslNaming {
  readonly products: Map<string, readonly string[]>;
  readonly definitions: ReadonlyMap<string, string>;
}

export function islAffine(p: Poly, naming: IslNaming): string {
  const renamed = polyFromTerms([...p.values()].map((t) => {
    if (t.symbols.length <= 1) return t;
    const name = t.symbols.join('_x_');
    naming.products.set(name, t.symbols);
    return { coefficient: t.coefficient, symbols: [name] };
  }));
  const text = polyToString(renamed);
  if (naming.definitions.size === 0) return text;
  return text.replace(/[A-Za-z_][A-Za-z0-9_]*/g, (name) => {
    const d = naming.definitions.get(name);
    return d === undefined ? name : `(${d})`;
  });
}

/** `0 <= f_i and f_i <= d_i - 1` for every inner dimension, as isl constraint text. */
export function boundsConstraints(subscripts: readonly Poly[], sizes: readonly DimensionSize[], naming: IslNaming): string[] {
  const out: string[] = [];
  sizes.forEach((d, i) => {
    const f = subscripts[i + 1]!;
    out.push(`${islAffine(f, naming)} >= 0`);
    out.push(`${islAffine(sub(sub(sizeToPoly(d), f), constant(1)), naming)} >= 0`);
  });
  return out;
}

/** The names of a set's parameters and of its set dimensions, and its tuple name. */
export function spaceOf(set: IslSet): { params: string[]; dims: string[]; tuple: string } {
  const params = Array.from({ length: set.dim(DimType.param) }, (_, i) => set.getDimName(DimType.param, i) ?? `p${i}`);
  const dims = Array.from({ length: set.dim(DimType.set) }, (_, i) => set.getDimName(DimType.set, i) ?? `i${i}`);
  return { params, dims, tuple: set.getTupleName() ?? '' };
}

/**
 * `[params] -> { tuple[dims] : constraints }` with the extra product parameters
 * defined (`n1_x_n2 = n1 * n2` cannot be said in isl, so they are free parameters
 * the caller equates at run time through the C text).
 */
export function setText(params: readonly string[], tuple: string, dims: readonly string[], constraints: readonly string[]): string {
  const body = constraints.length ? ` : ${constraints.join(' and ')}` : '';
  return `[${params.join(', ')}] -> { ${tuple}[${dims.join(', ')}]${body} }`;
}

export interface AccessValidity {
  /** Which pieces (by index) the domain meets. */
  readonly livePieces: readonly number[];
  /**
   * The piece chosen for the access: the first live piece that alone can hold
   * every executed instance for some parameters (pieces come with t = 0 first),
   * else the first that holds where the access does not run, or undefined when
   * only several pieces together can.
   */
  readonly chosen: number | undefined;
  /** [params] -> { : ... }: where every executed instance lies in the chosen piece (or, without one, in some live piece); not simplified. */
  readonly good: IslSet;
  /** [params] -> { : ... }: where the access executes at least once. */
  readonly executes: IslSet;
}

/**
 * For one access: its domain (`[params] -> { S[counters] : ... }`) and the
 * constraint texts of its candidate pieces (§3.3). Objects are made in the
 * caller's scope.
 */
export function accessValidity(ctx: Ctx, domain: IslSet, context: IslSet, pieceConstraints: readonly (readonly string[])[], extraParams: readonly string[]): AccessValidity {
  const { params, dims, tuple } = spaceOf(domain);
  const allParams = [...params, ...extraParams.filter((p) => !params.includes(p))];
  // { S[counters] : domain and context }
  const running = domain.intersectParams(context);
  // [params] -> { : the access runs }
  const executes = running.params();
  // per piece: { S[counters] : the access runs and the piece's subscripts are in bounds }
  const pieces = pieceConstraints.map((c) => ctx.set(setText(allParams, tuple, dims, c)).intersect(running));
  const livePieces = pieces.map((p, i) => (p.isEmpty() ? -1 : i)).filter((i) => i >= 0);
  // [params] -> { : every instance lies in `covered` }
  const goodFor = (covered: IslSet): IslSet => context.subtract(running.subtract(covered).params()).coalesce();
  for (const i of livePieces) {
    const good = goodFor(pieces[i]!);
    if (!good.intersect(executes).isEmpty()) return { livePieces, chosen: i, good, executes };
  }
  // No piece holds wherever the access runs, but one may hold where it does not: an access in
  // a copy of the loop for other parameters (-O3 unswitches convolve2d's loops on K > 0, and
  // with runtime unrolling off, as tscc builds, both copies are one SCoP; the K <= 0 copy's
  // write crosses rows). That piece, under the condition that the access does not run, keeps
  // the array's shape for the other accesses; where that contradicts every run the shape is
  // refused (tryShape) and the array stays linear as before.
  for (const i of livePieces) {
    const good = goodFor(pieces[i]!);
    if (!good.isEmpty()) return { livePieces, chosen: i, good, executes };
  }
  // { S[counters] : in some live piece }
  let covered = IslSetClass.empty(tupleSetSpace(ctx, { name: tuple === '' ? undefined : tuple, dims: dims.length }, allParams));
  for (const i of livePieces) covered = covered.union(pieces[i]!);
  return { livePieces, chosen: livePieces.length === 1 ? livePieces[0] : undefined, good: goodFor(covered), executes };
}

export type ConditionStatus = 'true' | 'conditional' | 'false';

/**
 * Merges conditions (each exact, not simplified) and simplifies the result
 * against where something executes: constraints that only hold when no access
 * executes are dropped. `executes` is the union of the accesses' execution sets.
 */
export function simplifyCondition(context: IslSet, good: IslSet, executes: IslSet, eliminable: readonly string[] = []): { condition: IslSet; status: ConditionStatus } {
  // [params] -> { : context and some access runs }
  const running = executes.intersect(context).coalesce();
  if (running.isEmpty()) return { condition: good.gist(context), status: 'true' };
  if (running.isSubset(good)) return { condition: running.gist(running), status: 'true' };
  if (good.intersect(running).isEmpty()) return { condition: good.intersect(running), status: 'false' };
  const condition = withoutParams(good.gist(running).coalesce(), eliminable, context, good, running);
  return { condition: plainer(condition, good, running), status: 'conditional' };
}

/** `set` with the parameters `names` projected out (existentially). */
function projectParams(set: IslSet, names: readonly string[]): IslSet {
  let out = set;
  for (const name of names) {
    const at = spaceOf(out).params.indexOf(name);
    if (at >= 0) out = out.projectOut(DimType.param, at, 1);
  }
  return out;
}

/**
 * `condition` without the parameters `names` (ones that stand for expressions
 * of the others, defined in the context: `p = floor(n/2)`) when it means the
 * same wherever something runs: `n >= p + 1` becomes `n >= 1`.
 */
function withoutParams(condition: IslSet, names: readonly string[], context: IslSet, exact: IslSet, running: IslSet): IslSet {
  const present = names.filter((n) => spaceOf(condition).params.includes(n));
  if (present.length === 0) return condition;
  const candidate = projectParams(condition.intersect(context), names).gist(projectParams(running, names)).coalesce();
  return candidate.intersect(running).isEqual(exact.intersect(running)) ? candidate : condition;
}

/**
 * The polyhedral hull of `condition` when it means the same wherever something
 * runs: unrolled loops split conditions by the parity of a bound
 * (`s2 = 2*floor(s2/2)`), and the hull joins the pieces back into one
 * constraint (`o2 + s2 <= n2`).
 */
function plainer(condition: IslSet, exact: IslSet, running: IslSet): IslSet {
  if (condition.nBasicSet() <= 1 && !condition.involvesLocals()) return condition;
  // [params] -> { : ... }
  const hull = IslSetClass.fromBasicSet(condition.polyhedralHull()).gist(running).coalesce();
  return hull.intersect(running).isEqual(exact.intersect(running)) ? hull : condition;
}

/**
 * A parameter set as a C expression: `n1 >= o1 + s1 && n2 >= o2 + s2`, disjuncts
 * joined by `||`. `cName` maps an isl parameter to its C text. Sets with local
 * (existential) variables are given as isl text in a comment-free fallback:
 * undefined, and the caller reports the isl text instead.
 */
export function conditionToC(set: IslSet, cName: (islName: string) => string = (n) => n): string | undefined {
  const { params } = spaceOf(set);
  const disjuncts = setConstraints(set);
  if (disjuncts.length === 0) return '0';
  const parts: string[] = [];
  for (const constraints of disjuncts) {
    if (constraints.some((c) => c.divs.some((x) => x !== 0n))) return undefined;
    const atoms = constraints.map((c) => constraintToC(c.params, c.constant, c.equality, params.map(cName)));
    if (atoms.length === 0) return '1';
    parts.push(atoms.length > 1 && disjuncts.length > 1 ? `(${atoms.join(' && ')})` : atoms.join(' && '));
  }
  return parts.join(' || ');
}

function constraintToC(coefficients: readonly bigint[], constantTerm: bigint, equality: boolean, names: readonly string[]): string {
  const lhs: string[] = [];
  const rhs: string[] = [];
  const term = (c: bigint, name: string): string => (c === 1n ? name : `${c} * ${name}`);
  coefficients.forEach((c, i) => {
    if (c > 0n) lhs.push(term(c, names[i]!));
    else if (c < 0n) rhs.push(term(-c, names[i]!));
  });
  // Σ lhs - Σ rhs + constant >= 0  ⇔  Σ lhs >= Σ rhs - constant
  let k = -constantTerm;
  if (lhs.length === 0) {
    // -Σ rhs + constant >= 0  ⇔  Σ rhs <= constant
    const op = equality ? '==' : '<=';
    return `${rhs.join(' + ')} ${op} ${constantTerm}`;
  }
  const right = [...rhs];
  if (k !== 0n || right.length === 0) {
    if (right.length === 0) right.push(`${k}`);
    else if (k > 0n) right.push(`${k}`);
    else {
      k = -k;
      return `${lhs.join(' + ')} ${equality ? '==' : '>='} ${right.join(' + ')} - ${k}`;
    }
  }
  return `${lhs.join(' + ')} ${equality ? '==' : '>='} ${right.join(' + ')}`;
}

/** For people: the subscripts of one piece as text, `[i + o0][j + o1]`. */
export const subscriptText = (subscripts: readonly Poly[]): string => subscripts.map((f) => `[${polyToString(f)}]`).join('');

// Optimistic delinearization of parametrically sized arrays (Grosser, Ramanujam,
// Pouchet, Sadayappan, Pop; ICS 2015): from the linearized offsets of the
// accesses to one base pointer to a shape [*][d1]…[dn], per-access subscripts,
// and the condition on the parameters under which that view is exact.
//
//   const r = delinearizeArray(ctx, context, accesses, options);
//   if (r.ok) … r.shape, r.accesses[k].pieces, r.condition
//
// Each base pointer is delinearized on its own (§3.2); `mergeConditions` joins
// the conditions of all arrays of a SCoP into the one run-time condition.
// Candidates are tried in order (§3.1/§3.4 first, then §4's orders): the first
// whose condition holds statically wins, else the first whose condition can
// hold; a contradiction rejects a candidate.
import { type Ctx, type Set as IslSet, IslQuotaError } from 'isl-wasm';
import { type Poly, polyToString, symbolsOf } from './poly';
import { type ShapeCandidate, type DimensionSize, candidateShapes, sizeToPoly } from './shape';
import { divideOffset, subscriptPieces, type SubscriptPiece } from './subscripts';
import { accessValidity, boundsConstraints, conditionToC, islAffine, simplifyCondition, spaceOf, setText, type ConditionStatus } from './validity';

export type { Poly } from './poly';
export type { ShapeCandidate, DimensionSize } from './shape';
export type { SubscriptPiece } from './subscripts';

/** One access to the base pointer, as the caller sees it. */
export interface DelinearizationAccess<Tag> {
  /** The caller's handle (the load or store), returned unchanged. */
  readonly tag: Tag;
  /**
   * The offset from the base in elements (bytes / element size), expanded: symbols
   * that name a dimension of `domain` are loop counters, all others parameters
   * (isl identifiers).
   */
  readonly offset: Poly;
  /** [params] -> { Stmt_S[i0, ...] : ... }: where the access runs; its dimension names are the counters. */
  readonly domain: IslSet;
  /**
   * Symbols of `offset` that stand for quasi-affine expressions of the counters,
   * as isl text over the domain's dimensions and the parameters (`q0` →
   * `floor((i0)/2)`: an unrolled loop's remainder). They count as counters.
   */
  readonly definitions?: ReadonlyMap<string, string>;
}

export interface DelinearizeOptions {
  /** §3.3: pieces M_t for t in [-maxShift, maxShift]. */
  readonly maxShift?: number;
  /** isl operations per candidate shape of a base pointer; past it the array stays linear (reason `quota`). Default 2,000,000; 0 = no limit. */
  readonly maxOperations?: number;
  /** The C text of an isl parameter (source names); identity by default. */
  readonly cName?: (islName: string) => string;
  /**
   * Parameters that stand for expressions of the others (defined in the context,
   * e.g. `p = floor(n/2)` for an unrolled loop's remainder): conditions are
   * rewritten without them where that means the same.
   */
  readonly eliminable?: readonly string[];
}

export interface DelinearizedAccess<Tag> {
  readonly tag: Tag;
  /**
   * The access's subscripts (outermost first, affine in the counters and
   * parameters) as §3.3 pieces: one, the first piece that alone can hold all
   * instances; several only when no single piece can, each holding where its
   * subscripts are within the bounds.
   */
  readonly pieces: readonly SubscriptPiece[];
  /**
   * isl text `[params] -> { Stmt_S[...] -> <array>[f0, ...] : ... }` with the
   * array tuple `arrayTuple`, a union over the pieces (piece conditions only
   * when there are several).
   */
  relation(arrayTuple: string): string;
}

export interface TriedShape {
  /** `[*][n1][n2]` */
  readonly shape: string;
  readonly method: ShapeCandidate['method'];
  readonly outcome: 'chosen' | 'not-affine' | 'contradiction' | 'conditional' | 'not-tried';
}

export interface ArrayDelinearization<Tag> {
  readonly ok: true;
  readonly shape: ShapeCandidate;
  /** Sizes of the inner dimensions as polynomials over the parameters (isl names). */
  readonly sizes: readonly Poly[];
  /** The report's shape: `["*", "n1", "n2"]`, C expressions over the function's parameters. */
  readonly shapeC: readonly string[];
  readonly accesses: readonly DelinearizedAccess<Tag>[];
  /** [params] -> { : ... }: simplified against the context and where the accesses run. */
  readonly condition: IslSet;
  /** Exact (unsimplified) condition and where some access runs, for merging. */
  readonly exact: { readonly good: IslSet; readonly executes: IslSet };
  readonly status: Exclude<ConditionStatus, 'false'>;
  /** The condition in C, undefined when statically true. */
  readonly conditionC: string | undefined;
  readonly tried: readonly TriedShape[];
}

export interface ArrayFailure {
  readonly ok: false;
  /** Stable key: `no-parametric-terms`, `no-shape`, `quota`. */
  readonly reason: 'no-parametric-terms' | 'no-shape' | 'quota';
  readonly detail: string;
  readonly tried: readonly TriedShape[];
}

export type ArrayResult<Tag> = ArrayDelinearization<Tag> | ArrayFailure;

/** The isl operations quota per candidate shape unless the caller says otherwise (as the model's per SCoP). */
export const defaultMaxOperations = 2_000_000;

export const shapeText = (sizes: readonly DimensionSize[]): string => `[*]${sizes.map((d) => `[${polyToString(sizeToPoly(d))}]`).join('')}`;

/**
 * Delinearizes the accesses to one base pointer (§3.2: one shape for all of them).
 * isl objects of the result live in the caller's scope.
 */
export function delinearizeArray<Tag>(ctx: Ctx, context: IslSet, accesses: readonly DelinearizationAccess<Tag>[], options: DelinearizeOptions = {}): ArrayResult<Tag> {
  const maxShift = options.maxShift ?? 1;
  const maxOperations = options.maxOperations ?? defaultMaxOperations;
  const cName = options.cName ?? ((n: string) => n);
  const counters = new Set<string>();
  const domainsInfo = accesses.map((a) => spaceOf(a.domain));
  for (const d of domainsInfo) for (const c of d.dims) counters.add(c);
  for (const a of accesses) for (const q of a.definitions?.keys() ?? []) counters.add(q);
  const offsets = accesses.map((a) => a.offset);
  const candidates = candidateShapes(offsets, counters);
  const tried: TriedShape[] = candidates.map((c) => ({ shape: shapeText(c.sizes), method: c.method, outcome: 'not-tried' }));
  if (candidates.length === 0) {
    const parametric = offsets.some((o) => symbolsOf(o).some((s) => !counters.has(s)));
    return {
      ok: false,
      reason: parametric ? 'no-shape' : 'no-parametric-terms',
      detail: parametric ? 'the parametric terms form no shape (no divisibility chain, no product of shifted sizes)' : 'no parameter multiplies a loop counter',
      tried,
    };
  }
  let fallback: ArrayDelinearization<Tag> | undefined;
  for (let k = 0; k < candidates.length; k++) {
    const attempt = (): ArrayDelinearization<Tag> | 'not-affine' | 'contradiction' => tryShape(ctx, context, accesses, candidates[k]!, counters, maxShift, cName, options.eliminable ?? []);
    let outcome: ReturnType<typeof attempt>;
    try {
      outcome = maxOperations > 0 ? ctx.withMaxOperations(maxOperations, attempt) : attempt();
    } catch (e) {
      if (e instanceof IslQuotaError) return { ok: false, reason: 'quota', detail: `isl quota of ${maxOperations} operations ran out`, tried };
      throw e;
    }
    if (typeof outcome === 'string') {
      tried[k] = { ...tried[k]!, outcome };
      continue;
    }
    if (outcome.status === 'true') {
      tried[k] = { ...tried[k]!, outcome: 'chosen' };
      return { ...outcome, tried };
    }
    tried[k] = { ...tried[k]!, outcome: 'conditional' };
    fallback ??= outcome;
  }
  if (fallback) {
    const at = tried.findIndex((t) => t.shape === shapeText(fallback!.shape.sizes));
    tried[at] = { ...tried[at]!, outcome: 'chosen' };
    return { ...fallback, tried };
  }
  return { ok: false, reason: 'no-shape', detail: 'every candidate shape was refused (subscripts not affine, or a contradictory condition)', tried };
}

function tryShape<Tag>(
  ctx: Ctx, context: IslSet, accesses: readonly DelinearizationAccess<Tag>[], shape: ShapeCandidate, counters: ReadonlySet<string>,
  maxShift: number, cName: (n: string) => string, eliminable: readonly string[],
): ArrayDelinearization<Tag> | 'not-affine' | 'contradiction' {
  const divided = accesses.map((a) => divideOffset(a.offset, shape.sizes, counters));
  if (divided.some((d) => d === undefined)) return 'not-affine';
  const products = new Map<string, readonly string[]>();
  const perAccess = accesses.map((a, i) => {
    const naming = { products, definitions: a.definitions ?? new Map<string, string>() };
    const pieces = subscriptPieces(divided[i]!, shape.sizes, maxShift);
    const constraints = pieces.map((p) => boundsConstraints(p.subscripts, shape.sizes, naming));
    return { access: a, pieces, constraints, naming };
  });
  const extra = [...products.keys()];
  let good: IslSet | undefined;
  let executes: IslSet | undefined;
  const results: DelinearizedAccess<Tag>[] = [];
  for (const { access, pieces, constraints, naming } of perAccess) {
    const v = accessValidity(ctx, access.domain, context, constraints, extra);
    // One piece where one can hold (§3.3); an access that never runs keeps its plain division.
    const live = v.chosen !== undefined ? [v.chosen] : v.livePieces.length > 0 ? v.livePieces : [0];
    const kept = live.map((i) => ({ piece: pieces[i]!, constraints: constraints[i]! }));
    good = good ? good.intersect(v.good) : v.good;
    executes = executes ? executes.union(v.executes) : v.executes;
    const { params, dims, tuple } = spaceOf(access.domain);
    results.push({
      tag: access.tag,
      pieces: kept.map((k) => k.piece),
      relation: (arrayTuple) => {
        const parts = kept.map((k) => {
          const out = k.piece.subscripts.map((f) => islAffine(f, naming)).join(', ');
          const cond = kept.length > 1 ? ` : ${k.constraints.join(' and ')}` : '';
          return `${tuple}[${dims.join(', ')}] -> ${arrayTuple}[${out}]${cond}`;
        });
        // After the subscripts: they may name products of parameters of their own.
        const allParams = [...params, ...[...products.keys()].filter((p) => !params.includes(p))];
        return `[${allParams.join(', ')}] -> { ${parts.join('; ')} }`;
      },
    });
  }
  const simplified = simplifyCondition(context, good!, executes!, eliminable);
  if (simplified.status === 'false') return 'contradiction';
  const cOf = withProducts(cName);
  return {
    ok: true,
    shape,
    sizes: shape.sizes.map(sizeToPoly),
    shapeC: ['*', ...shape.sizes.map((d) => polyToC(sizeToPoly(d), cName))],
    accesses: results,
    condition: simplified.condition,
    exact: { good: good!, executes: executes! },
    status: simplified.status,
    conditionC: simplified.status === 'true' ? undefined : (conditionToC(simplified.condition, cOf) ?? simplified.condition.toStr()),
    tried: [],
  };
}

/** C names that also read the product parameters `islAffine` makes (`n1_x_n2` → `n1 * n2`). */
const withProducts = (cName: (n: string) => string) => (n: string): string => n.split('_x_').map(cName).join(' * ');

/** A polynomial as C over the function's parameters. */
export function polyToC(p: Poly, cName: (n: string) => string): string {
  // A parameter that stands for an expression (`(n) / (2)`) keeps its own parentheses as a factor.
  const factor = (n: string): string => {
    const c = cName(n);
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(c) ? c : `(${c})`;
  };
  const renamed = new Map<string, { coefficient: bigint; symbols: string[] }>();
  for (const [key, t] of p) renamed.set(key, { coefficient: t.coefficient, symbols: t.symbols.map(factor) });
  return polyToString(renamed);
}

/**
 * One condition for a SCoP from the conditions of its arrays: the intersection of
 * the exact conditions, simplified against where any of the accesses runs.
 * Undefined C text when it holds statically (it vanishes from the run-time check).
 */
export function mergeConditions(
  context: IslSet, arrays: readonly ArrayDelinearization<unknown>[], cName: (n: string) => string = (n) => n, eliminable: readonly string[] = [],
): { condition: IslSet; status: ConditionStatus; c: string | undefined } {
  if (arrays.length === 0) return { condition: context.gist(context), status: 'true', c: undefined };
  let good = arrays[0]!.exact.good;
  let executes = arrays[0]!.exact.executes;
  for (const a of arrays.slice(1)) {
    good = good.intersect(a.exact.good);
    executes = executes.union(a.exact.executes);
  }
  const s = simplifyCondition(context, good, executes, eliminable);
  const c = s.status === 'true' ? undefined : (conditionToC(s.condition, withProducts(cName)) ?? s.condition.toStr());
  return { condition: s.condition, status: s.status, c };
}

/** isl set text from parameter names, a tuple, its dimensions and constraints (for callers building domains). */
export { setText };

// What the model assumes, as parameter sets: for each kind of check (signs, loop
// bounds, wrapping, array bounds, delinearization), the parameters for which no check
// of that kind fails anywhere it must hold, simplified against the context and the
// kinds before it, and printed as C for the run-time check.
import type { Ctx } from 'isl-wasm';
import { AstBuild, DimType, MultiAff, Set as IslSet } from 'isl-wasm';
import type { Parameter } from './affine';
import { ScevKind } from '../analysis/scev';
import type { ScopLoop } from '../analysis/scop-detection-types';
import type { CheckText, ScopText } from './describe';
import type { Assumption, AssumptionKind, ScopStatementModel } from './model';
import { counterAff } from './schedule';

// Sign facts first: they often make the wrap checks true.
// Last, 'error-block': no edge into an error block is taken (analysis/error-blocks.ts).
const assumptionOrder: AssumptionKind[] = ['unsigned', 'loop-bound', 'no-wrap', 'in-bounds', 'delinearization', 'error-block'];

/**
 * One assumption per kind: the parameters for which no check of that kind is
 * violated anywhere it must hold, gisted against the context.
 */
export function computeAssumptions(ctx: Ctx, t: ScopText, context: IslSet, statements: readonly ScopStatementModel[]): Assumption[] {
  const p = t.paramPrefix;
  const out: Assumption[] = [];
  // [params] -> { [i0, ..., ik] : iterations of the loop (and its outer loops) that run some statement }
  const iterations = new Map<ScopLoop, IslSet>();
  const iterationsOf = (loop: ScopLoop): IslSet => {
    let found = iterations.get(loop);
    if (found) return found;
    const k = loop.depth;
    // The loop's counters named i0.. as the checks' text names them
    const named = (set: IslSet): IslSet => Array.from({ length: k }, (_, j) => j).reduce((x, j) => x.setDimName(DimType.set, j, `i${j}`), set);
    for (const s of statements) {
      if (!s.loops.includes(loop)) continue;
      // { Stmt_S[i0, ..., in] -> [i0, ..., i(k-1)] }
      const project = Array.from({ length: k }, (_, j) => MultiAff.fromAff(counterAff(s.domain, j))).reduce((a, b) => a.flatRangeProduct(b)).asMap();
      const d = named(s.domain.apply(project));
      found = found === undefined ? d : found.union(d);
    }
    found ??= named(IslSet.empty(context.getSpace().addUnnamedTupleUi(k)));
    iterations.set(loop, found);
    return found;
  };
  // [params] -> { : context and the assumptions so far }
  let known = context;
  const cNames = renamedParameters(t.parameters);
  // C already printed, by the set's and the context's text (see setToC).
  const printed = new Map<string, string>();
  for (const kind of assumptionOrder) {
    const checks = t.checks.filter((c) => c.kind === kind);
    if (checks.length === 0) continue;
    // One isl set per place: the disjunction of every violation checked there.
    const byPlace = new Map<string | ScopLoop, CheckText[]>();
    for (const c of checks) byPlace.set(c.where, [...(byPlace.get(c.where) ?? []), c]);
    // [params] -> { [i..] : where the checks of a place must hold }, by place (or its hull)
    const places = (hull: boolean): [IslSet, CheckText[]][] => [...byPlace].map(([place, found]) => {
      const where = typeof place === 'string' ? ctx.set(p + place) : iterationsOf(place);
      return [hull ? where.polyhedralHull().toSet() : where, found];
    });
    // [params] -> { : no check of this kind fails where it must hold }
    const holdsOn = (wheres: [IslSet, CheckText[]][]): IslSet => {
      let bad = context.complement().intersect(context); // empty set in the parameter space
      for (const [where, found] of wheres) {
        const violation = ctx.set(`${p}{ ${found[0]!.tuple} : ${found.map((c) => `(${c.violation})`).join(' or ')} }`);
        bad = bad.union(where.intersect(violation).params());
      }
      return context.subtract(bad).coalesce();
    };
    const exact = places(false);
    let holds = holdsOn(exact);
    // Only what the context and the assumptions before say not already.
    if (known.isSubset(holds)) continue;
    let set = holds.gist(known).coalesce();
    // Every place its own hull (zlib inffast.c's wrap checks): the hull's condition is this one.
    const hullsDiffer = (hulls: [IslSet, CheckText[]][]): boolean => hulls.some(([hull], k) => hull.toString() !== exact[k]![0].toString());
    let placeHulls: [IslSet, CheckText[]][] | undefined;
    if (set.nBasicSet() > MAX_PLAIN_DISJUNCTS) {
      placeHulls = places(true);
      if (!hullsDiffer(placeHulls)) {
        // No hull can be taken, so the C only describes the check (report, remarks, debug log):
        // printed without the context, still exact (the check conjoins what `known` holds), at a
        // fraction of isl's work (inffast.c's wrap checks against `known`: 0.1-0.7 s a print).
        out.push({ kind, set, c: setToC(ctx, set, IslSet.universe(known.getSpace()), cNames, printed) });
        known = known.intersect(holds);
        continue;
      }
    }
    let c = setToC(ctx, set, known, cNames, printed);
    const hulls = isComplicated(c) ? placeHulls ?? places(true) : [];
    if (hullsDiffer(hulls)) {
      // The weakest condition can be a maze of divisions and special cases (remainder
      // loops of unrolling that happen not to run). Asking the checks to hold on the
      // polyhedral hull of where they apply gives a stronger condition, so just as
      // sound, usually without divisions, and cheap to test at run time.
      const hullHolds = holdsOn(hulls);
      const hullSet = hullHolds.gist(known).coalesce();
      const hullC = setToC(ctx, hullSet, known, cNames, printed);
      if (!hullHolds.intersect(known).isEmpty() && hullC.length < c.length) ({ holds, set, c } = { holds: hullHolds, set: hullSet, c: hullC });
    }
    out.push({ kind, set, c });
    known = known.intersect(holds);
  }
  return out;
}

/**
 * A set of more disjuncts has its places' hulls looked at before it is printed: printed, it is a
 * complicated condition unless isl's own gist drops disjuncts (one `||` between each two left).
 */
const MAX_PLAIN_DISJUNCTS = 3;

/** Run-time checks should be a few comparisons: no divisions, no long disjunctions. */
function isComplicated(c: string): boolean {
  return /[%/]/.test(c) || (c.match(/\|\|/g) ?? []).length > 2;
}

/**
 * A parameter set as a C expression (`n >= 1 && m <= 100`), "1" for the universe, "0" for the empty set.
 * `cNames` maps isl parameter names to C identifiers where they differ (`i0_` → `i0`).
 * `printed` (for one `cNames`) keeps each C by the set's and the context's text: a set that
 * reads the same is printed once. The hull of zlib inffast.c's wrap checks is the set itself,
 * and each print costs isl 0.1-0.8 s there. The text is taken after the tests above, which
 * put the set's disjuncts in isl's normal order (the hull's come in another).
 */
export function setToC(ctx: Ctx, set: IslSet, context: IslSet, cNames: ReadonlyMap<string, string> = new Map(), printed?: Map<string, string>): string {
  if (set.isEmpty()) return '0';
  if (context.isSubset(set)) return '1';
  const key = printed && `${set.toString()}\n${context.toString()}`;
  const cached = key === undefined ? undefined : printed?.get(key);
  if (cached !== undefined) return cached;
  const c = ctx.scope(() => {
    // Both live in the same parameter space: rename in both, positions by name.
    const rename = (s: IslSet): IslSet => {
      let out = s;
      for (let k = 0; k < out.dim(DimType.param); k++) {
        const c = cNames.get(out.getDimName(DimType.param, k) ?? '');
        if (c !== undefined) out = out.setDimName(DimType.param, k, c);
      }
      return out;
    };
    return AstBuild.fromContext(rename(context)).exprFromSet(rename(set)).toCStr();
  });
  if (key !== undefined) printed?.set(key, c);
  return c;
}

/**
 * isl names of parameters whose C text differs: another identifier (a source name the
 * model's dimensions took), or a product of parameters (`(n * n)`, parenthesized so that
 * isl's `2 * p` stays right).
 */
export function renamedParameters(parameters: readonly Parameter[]): Map<string, string> {
  return new Map(parameters.flatMap((p): [string, string][] => {
    if (p.c === p.name) return [];
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(p.c)) return [[p.name, p.c]];
    return p.expression.kind === ScevKind.Mul ? [[p.name, `(${p.c})`]] : [];
  }));
}

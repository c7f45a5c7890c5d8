// The schedule optimizer's first transformation: loop interchange, for the column walk.
//
//   for (i) { pre(i); for (j) S(i, j); post(i); }      S walks a column: A[j][i], x[i]
//     ==>  for (i) pre(i);  for (j) for (i) S(i, j);  for (i) post(i);
//
//   for (i) { for (j) S(i, j); for (j) T(i, j); }      S walks a column, T a row (TSVC's s2233)
//     ==>  for (j) for (i) S(i, j);  for (i) for (j) T(i, j);
//
// A loop M whose statements step through an array by a whole row per iteration (A[j][i]
// along j) runs one cache line per element; when the loop L around it steps every access
// by one element or not at all, and L carries no dependence, running L innermost turns the
// walk into rows and the inner loop into one opt's vectorizer takes (gemver's
// `x[i] += beta * A[j][i] * y[j]`).
// The statements of L before and after M go to loops of their own (distribution).
//
// Which nests: the loops in L are innermost (M, or -O3's unrolled loop and its remainder
// loop), and some are worth it: some array access of its statements moves by more than one
// element per iteration of it (or by a varying amount), and every access moves by zero or
// one element per iteration of L, one of them by one. Those are interchanged; L's other loops
// only go to loops of their own, in their order. L may carry a dependence (TSVC's s233: the
// second column walk reads what the previous i wrote): then only an inner loop whose own
// statements L runs independently is turned (`carriedAmong`: no two of their instances in
// different iterations of L touch one array element, one writing), so the loop turned inside
// is one opt may vectorize; the others keep their order in loops of their own (s233's second
// walk; a scan along i, or syrk's sum along k, stays as -O3 has it). The new inner loop is
// marked parallel only where L was (codegen/versioning.ts). Legal when every pair of instances under
// L touching one location, one of them writing (arrays, scalars and PHI locations: the fast
// path keeps a scalar in one stack slot), runs in the same order as before, so the results
// are bit for bit the original order's (`brokenOrder`: the test for arrays and scalars alike).
// A scalar written in M's statements (a reduction -O3 keeps in a PHI) is one location for
// all i, and the interchange is refused until DeLICM has mapped it to an array element.
//
// The schedule is the model's 2D+1 schedule with its time dimensions permuted per statement
// (isl: the statement's map composed with a multi-affine map of the time space): under an
// interchanged L = loop at depth d, whose constant sits at t[a] (a = 2d - 2),
//   in L     S[.., i]     [.., cL, i, p, 0, 0, ..]   ->  [.., cL, p, i, p, 0, 0, ..]
//   in M     S[.., i, j]  [.., cL, i, m, j, q, ..]   ->  [.., cL, m, j, m, i, q, ..]
// (one more dimension: the position p of the statement or m of its loop among L's children
// now comes before the counter); in a loop M of L only distributed,
//   S[.., i, j]  [.., cL, i, m, j, q, ..]   ->  [.., cL, m, i, m, j, q, ..];
// every other statement gets a 0 at the end. Statements under
// different nests, or one under a nest and one outside, differ at or before t[a] already,
// so the rewrite keeps their order. Whatever the schedule, the new order is taken only where
// it keeps every conflicting pair's order (`brokenOrder`).
//
// With --parallel, an interchanged L that carries nothing leaves a parallel loop only inside
// the turned one, where a thread gets one iteration of work (PolyBench gramschmidt: the columns
// j inside each walk down the rows). `blockOuterLoops` strip-mines L instead: its counter's
// block floor(i / size) goes right after L's constant, before everything the interchange put
// there, so each block runs the interchanged nest over its own iterations of L,
//   [.., cL, m, j, m, i, q, ..]  ->  [.., cL, floor(i / size), m, j, m, i, q, ..],
// and the block loop runs on threads (codegen/versioning.ts). Two instances in one block keep
// the interchanged order; in two blocks they are in two iterations of L, which carries nothing
// and whose blocks run in L's order on one thread (and `brokenOrder` checks it all the same).
import { AffList, DimType, Set as IslSet, type Map as IslMap, type Space, type UnionMap } from 'isl-wasm';
import type { ScopLoop } from '../analysis/scop-detection-types';
import { accessConflicts, wrapsAround } from '../polyhedral/dependences';
import type { ScopAccess, ScopModel, ScopStatementModel } from '../polyhedral/model';
import { mapOf } from '../polyhedral/schedule';

/** One interchanged nest: each of `inners` now runs outside `outer`. */
export interface InterchangedNest {
  readonly outer: ScopLoop;
  /** The loops in `outer` turned around it, all innermost (-O3's unrolled loop and its remainder loop are two); `outer`'s other loops are only distributed. */
  readonly inners: readonly ScopLoop[];
  /** Every statement under `outer`. */
  readonly statements: readonly ScopStatementModel[];
}

/** A nest worth interchanging that cannot be, and why. */
export interface RefusedInterchange {
  readonly outer: ScopLoop;
  readonly inners: readonly ScopLoop[];
  readonly why: string;
  /** The order is broken only through scalars or PHI locations (what DeLICM may map away). */
  readonly byScalars: boolean;
}

export interface InterchangePlan {
  readonly nests: readonly InterchangedNest[];
  readonly refused: readonly RefusedInterchange[];
  /** [params] -> { Stmt_S[i..] -> [t0, ..., t(2D+1)] }: the new order (defined when `nests` is not empty). */
  readonly schedule: UnionMap | undefined;
  /** The new order of each statement under an interchanged nest: [params] -> { Stmt_S[i0, i1] -> [1, 1, i1, 1, i0, 0] }. */
  readonly moved: ReadonlyMap<ScopStatementModel, IslMap>;
}

/** `outer <-> inner, ...`, by the loops' labels (`gemver.c:24 <-> gemver.c:25`). */
export function nestLabel(model: ScopModel, n: { readonly outer: ScopLoop; readonly inners: readonly ScopLoop[] }): string {
  return `${model.loopLabels.get(n.outer) ?? '?'} <-> ${n.inners.map((l) => model.loopLabels.get(l) ?? '?').join(', ')}`;
}

/** How an access's element moves from one iteration of a loop to the next. */
export type Stride = 'none' | 'invariant' | 'unit' | 'other';

/** The nests of `model` to interchange and the new schedule. isl objects live in the caller's scope. */
export function planInterchange(model: ScopModel): InterchangePlan {
  const parallel = new Set(model.dependences.parallelLoops);
  const nests: InterchangedNest[] = [];
  const refused: RefusedInterchange[] = [];
  for (const outer of model.loops) {
    const statements = model.statements.filter((s) => s.loops.includes(outer));
    const children = model.loops.filter((l) => l.parent === outer);
    // Loops in L, all innermost: every statement under L is in L or directly in one of them.
    if (children.length === 0 || statements.some((s) => s.loops.length > outer.depth + 1)) continue;
    // The loops worth turning whose statements L runs independently (L turned inside stays a
    // loop opt may vectorize); the others are only distributed, in their order.
    const carries = !parallel.has(outer);
    const inners = children.filter((m) => {
      const own = statements.filter((s) => s.loops.includes(m));
      return worthIt(model, own, m, outer) && (!carries || !carriedAmong(model, own, outer));
    });
    if (inners.length === 0) continue;
    const nest = { outer, inners, statements };
    const why = brokenOrder(model, statements, unionOf(rewrite(model, [nest])));
    if (why) refused.push({ outer, inners, ...why });
    else nests.push(nest);
  }
  if (nests.length === 0) return { nests, refused, schedule: undefined, moved: new Map() };
  const all = rewrite(model, nests);
  const moved = new Map(nests.flatMap((n) => n.statements).map((st) => [st, all.get(st)!] as const));
  return { nests, refused, schedule: unionOf(all), moved };
}

/**
 * Whether two instances of `statements` in different iterations of `outer` touch one array
 * element, one writing it (scalars are left to `brokenOrder`, which DeLICM's model may satisfy).
 */
function carriedAmong(model: ScopModel, statements: readonly ScopStatementModel[], outer: ScopLoop): boolean {
  return model.ctx.scope(() => {
    // [params] -> { S[..] -> T[..] : S writes an element T touches }, both ways
    const touching = accessConflicts(statements, model.schedule, false);
    if (touching.isEmpty()) return false;
    // [params] -> { [t] -> [u] } of those pairs' times, and their differences
    const times = touching.union(touching.reverse()).applyDomain(model.schedule).applyRange(model.schedule);
    const moves = times.deltas();
    if (moves.isEmpty()) return false;
    const counter = 2 * outer.depth - 1;
    const space = moves.getSetList().getAt(0).getSpace();
    return !moves.isSubset(IslSet.universe(space).fixSi(DimType.set, counter, 0).toUnionSet());
  });
}

/** Some access walks across rows along `inner`; along `outer`, every access moves by zero or one element, one by one. */
function worthIt(model: ScopModel, innerStatements: readonly ScopStatementModel[], inner: ScopLoop, outer: ScopLoop): boolean {
  let across = false;
  let unit = false;
  for (const st of innerStatements) {
    for (const acc of st.accesses) {
      if (acc.array.kind !== 'array') continue;
      const alongInner = stride(model, st, acc, inner.depth - 1);
      const alongOuter = stride(model, st, acc, outer.depth - 1);
      if (alongInner === 'other') across = true;
      if (alongOuter === 'other') return false;
      if (alongOuter === 'unit') unit = true;
    }
  }
  return across && unit;
}

/**
 * How the element `acc` touches moves from iteration x to x + 1 of the statement's dimension `dim`.
 * Computed once per statement, access and dimension (the interchange, the schedule filter, the
 * optimizer's cost model and its band permutation all ask): statements and their accesses do not change.
 */
export function stride(model: ScopModel, st: ScopStatementModel, acc: ScopAccess, dim: number): Stride {
  let byAccess = strides.get(st);
  if (!byAccess) strides.set(st, (byAccess = new Map()));
  let known = byAccess.get(acc);
  if (!known) byAccess.set(acc, (known = []));
  return (known[dim] ??= strideOf(model, st, acc, dim));
}
const strides = new WeakMap<ScopStatementModel, Map<ScopAccess, Stride[]>>();

function strideOf(model: ScopModel, st: ScopStatementModel, acc: ScopAccess, dim: number): Stride {
  // Modulo-2^n subscripts: isl's operations on them are slow beyond its quota (dependences.ts).
  if (wrapsAround(acc.relation)) return 'other';
  return model.ctx.scope(() => {
    const step = stepAlong(model, st, dim);
    // [params] -> { Stmt_S[i..] -> MemRef_A[o..] } over the statement's instances
    const touches = acc.relation.intersectDomain(st.domain);
    // [params] -> { MemRef_A[o..] -> MemRef_A[o'..] }: elements of consecutive iterations
    const pairs = touches.reverse().applyRange(step).applyRange(touches);
    if (pairs.isEmpty()) return 'none';
    // [params] -> { MemRef_A[o' - o] }
    const moves = pairs.deltas();
    const n = moves.tupleDim();
    const at = (last: number): IslSet => {
      let s = IslSet.universe(moves.getSpace());
      for (let k = 0; k < n; k++) s = s.fixSi(DimType.set, k, k === n - 1 ? last : 0);
      return s;
    };
    if (moves.isSubset(at(0))) return 'invariant';
    if (n > 0 && (moves.isSubset(at(1)) || moves.isSubset(at(-1)))) return 'unit';
    return 'other';
  });
}

/** { Stmt_S[i..] -> Stmt_S[i.., i_dim + 1, ..] }: one step of the statement's dimension `dim`. */
export function stepAlong(model: ScopModel, st: ScopStatementModel, dim: number): IslMap {
  const identity = st.domain.getSpace().identityMultiAffOnDomain();
  return identity.setAt(dim, identity.getAt(dim).addConstantVal(model.ctx.val(1))).asMap();
}

/** Each statement's time with `nests` interchanged (see the head of this file): [params] -> { Stmt_S[i0, i1] -> [..] }. */
function rewrite(model: ScopModel, nests: readonly InterchangedNest[]): Map<ScopStatementModel, IslMap> {
  const nestOf = new Map<ScopStatementModel, InterchangedNest>();
  for (const n of nests) for (const s of n.statements) nestOf.set(s, n);
  const width = 2 * model.depth + 1;
  const range = (from: number, to: number): number[] => Array.from({ length: Math.max(to - from, 0) }, (_, k) => from + k);
  const out = new Map<ScopStatementModel, IslMap>();
  for (const st of model.statements) {
    const nest = nestOf.get(st);
    // The old time dimension at each new one (undefined: 0).
    let pick: (number | undefined)[] = range(0, width);
    if (nest) {
      const a = 2 * nest.outer.depth - 2;
      const head = range(0, a + 1);
      const inner = st.loops[nest.outer.depth];
      if (inner !== undefined && nest.inners.includes(inner)) pick = [...head, a + 2, a + 3, a + 2, a + 1, ...range(a + 4, width)];
      else if (inner !== undefined) pick = [...head, a + 2, a + 1, a + 2, a + 3, ...range(a + 4, width)];
      else pick = [...head, a + 2, a + 1, ...range(a + 2, width)];
    }
    while (pick.length < width + 1) pick = [...pick, undefined];
    out.set(st, st.schedule.applyRange(timeMap(st.schedule.getSpace().range(), pick).asMap()));
  }
  return out;
}

/** Blocks of an outer loop fewer than this, at its most iterations, leave it as the interchange has it. */
const fewBlocks = 8;

/**
 * With `--parallel`: `plan`'s order with the outer loop L of each nest that carries nothing
 * strip-mined by `size`, its blocks outside everything L runs (see the head of this file), where
 * `wanted(L)` says so.
 * [params] -> { Stmt_S[i..] -> [..] } over every statement (one more time dimension: the block
 * right after L's constant, a 0 at the end of the others), or undefined when no nest qualifies.
 */
export function blockOuterLoops(model: ScopModel, plan: InterchangePlan, size: number, wanted: (outer: ScopLoop) => boolean): { schedule: UnionMap; nests: readonly InterchangedNest[] } | undefined {
  const parallel = new Set(model.dependences.parallelLoops);
  // L's most iterations, at constant sizes only: fewer than `fewBlocks` blocks cannot be shared
  // out evenly (PolyBench doitgen's 160 p would be 64, 64 and 32 on two threads), and where the
  // loops inside L may run on threads already (doitgen's kernel, at parametric sizes) blocks of
  // unknown count are no better.
  const iterations = (n: InterchangedNest): number => {
    if (model.context.dim(DimType.param) > 0) return 0;
    const d = n.outer.depth - 1;
    const most = n.statements.map((st) => st.domain.intersectParams(model.context).dimMaxVal(d));
    return most.every((v) => v.isInt()) ? Math.max(...most.map((v) => v.getNumSi())) + 1 : 0;
  };
  const candidates = plan.nests.filter((n) => parallel.has(n.outer) && wanted(n.outer) && iterations(n) >= fewBlocks * size);
  if (candidates.length === 0 || plan.schedule === undefined) return undefined;
  const width = 2 * model.depth + 1;
  const range = (from: number, to: number): number[] => Array.from({ length: Math.max(to - from, 0) }, (_, k) => from + k);
  const timed = (st: ScopStatementModel, nest: InterchangedNest | undefined): IslMap => {
    // [params] -> { Stmt_S[..] -> [t'..] }: the statement's interchanged time (width + 1 dimensions)
    const moved = plan.moved.get(st) ?? plan.schedule!.intersectDomain(st.domain.toUnionSet()).getMapList().getAt(0);
    if (!nest) return moved.applyRange(timeMap(moved.getSpace().range(), [...range(0, width + 1), undefined], size).asMap());
    const a = 2 * nest.outer.depth - 2;
    const inner = st.loops[nest.outer.depth];
    // Where the interchange put L's counter: after the inner loop's constant, counter and constant, or after the statement's position.
    const counter = inner !== undefined && nest.inners.includes(inner) ? a + 4 : a + 2;
    return moved.applyRange(timeMap(moved.getSpace().range(), [...range(0, a + 1), { block: counter }, ...range(a + 1, width + 1)], size).asMap());
  };
  const blocked = (nests: readonly InterchangedNest[]): UnionMap => {
    const nestOf = new Map(nests.flatMap((n) => n.statements.map((st) => [st, n] as const)));
    return model.statements.map((st) => timed(st, nestOf.get(st)).toUnionMap()).reduce((x, y) => x.union(y));
  };
  // Each nest's blocks keep every conflicting pair's order (the outer loop carries nothing, so
  // pairs in two blocks are in two iterations of it, which run in order on a thread); checked all the same.
  const nests = candidates.filter((n) => brokenOrder(model, n.statements, blocked([n])) === undefined);
  return nests.length === 0 ? undefined : { schedule: blocked(nests), nests };
}

/**
 * { [t0, ..] -> [t(pick[0]), ..] } on the time space `time`, 0 where `pick` says undefined and
 * floor(t[k] / blockSize) where it says `{ block: k }`.
 */
function timeMap(time: Space, pick: readonly (number | undefined | { block: number })[], blockSize = 1): UnionMap {
  const t = time.identityMultiAffOnDomain();
  const zero = time.zeroAffOnDomain();
  let list = AffList.alloc(time.ctx, pick.length);
  for (const k of pick) list = list.add(k === undefined ? zero : typeof k === 'number' ? t.getAt(k) : t.getAt(k.block).scaleDownVal(time.ctx.val(blockSize)).floor());
  return mapOf(time.addUnnamedTupleUi(pick.length).multiAff(list));
}

/** { Stmt_S[..] -> [..]; ... } of every statement's time. */
function unionOf(times: ReadonlyMap<ScopStatementModel, IslMap>): UnionMap {
  return [...times.values()].map((m) => m.toUnionMap()).reduce((a, b) => a.union(b));
}

/**
 * Why `schedule` runs two instances of `statements` touching one location, one writing it,
 * in the other order than the model's schedule, or undefined when it does not.
 */
function brokenOrder(model: ScopModel, statements: readonly ScopStatementModel[], schedule: UnionMap): { why: string; byScalars: boolean } | undefined {
  return model.ctx.scope(() => {
    // The pairs asked about are instances of `statements`: which runs first is read from their
    // times alone, so both orders are built over `statements` only, not every pair of the SCoP's
    // statements (the same answer for a fraction of isl's work: issue 16), each once.
    // [params] -> { Stmt_S[..] : S in statements }
    const domains = statements.map((st) => st.domain.toUnionSet()).reduce((a, b) => a.union(b));
    let before: UnionMap | undefined;
    let after: UnionMap | undefined;
    const broken = (scalars: boolean): boolean => {
      // [params] -> { S[..] -> T[..] : S writes a location T touches }, both ways
      const touching = accessConflicts(statements, model.schedule, scalars);
      const pairs = touching.union(touching.reverse());
      // No pair: nothing to reorder (and no time to read the orders' space from).
      if (pairs.isEmpty()) return false;
      const original = pairs.intersect((before ??= precedes(model.schedule.intersectDomain(domains))));
      return !original.isSubset((after ??= precedes(schedule.intersectDomain(domains))));
    };
    if (broken(false)) return { why: 'it would reorder accesses to an array element', byScalars: false };
    if (broken(true)) {
      const names = [...new Set(statements.flatMap((s) => s.accesses.filter((a) => a.array.kind !== 'array' && a.kind === 'write').map((a) => a.array.tupleName)))];
      return { why: `it would reorder the writes and reads of ${names.join(', ')}, one location for every iteration`, byScalars: true };
    }
    return undefined;
  });
}

/** { S[..] -> T[..] : `schedule` runs S before T }, for a schedule whose times share one space. */
function precedes(schedule: UnionMap): UnionMap {
  const time = schedule.getMapList().getAt(0).getSpace().range();
  // { [t0, ..] -> [u0, ..] : t precedes u lexicographically }
  const lexLess = time.mapFromSet().universeMap().lexLtAtMultiPwAff(time.identityMultiPwAffOnDomain()).toUnionMap();
  return schedule.applyRange(lexLess).applyRange(schedule.reverse());
}

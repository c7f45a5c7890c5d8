// Dependences of a SCoP from isl's dataflow analysis (Polly's DependenceInfo):
// read-after-write, write-after-read and write-after-write, each computed
// separately for array elements and for scalar/PHI locations, and the loops
// that carry none of them.
//
// isl_union_access_info_compute_flow gives, for every sink instance, the last
// source instances before it (exact for must sources, all candidates for may
// sources); `get_may_dependence` is the union of both, a map
// { SourceStmt[..] -> SinkStmt[..] }.
//
// Which loops are parallel is all that code generation asks, and it does not need
// the exact array dataflow, by far the costliest part (seconds on -O3's
// runtime-unrolled nests): a loop carries an array dependence of some kind exactly
// when it carries a pair of accesses to one element, one of them a write, in
// different iterations (see `conflictsOf`). So the parallel loops come from those
// conflicts and the (cheap, exact) scalar flow, and the six exact relations and what
// each loop carries are computed when first asked for (printers, tests).
import { type Ctx, DimType, IslQuotaError, Map as IslMap, type Set as IslSet, type UnionFlow, type UnionMap, UnionAccessInfo } from 'isl-wasm';
import type { ScopLoop } from '../analysis/scop-detection-types';
import type { DependencePair, Dependences, ScopStatementModel } from './model';
import { equalUpTo, relationOf, tupleMapSpace, type Tuple } from './relations';

export interface DependenceInput {
  readonly statements: readonly ScopStatementModel[];
  readonly loops: readonly ScopLoop[];
  /** [params] -> { Stmt[..] -> [t0, ..., t2D] } */
  readonly schedule: UnionMap;
  /** [params] -> { : ... } where the model is exact; dependences are restricted to it. */
  readonly assumedContext: IslSet;
  /**
   * Runs the exact dataflow analysis when a consumer first asks for it, after
   * `computeDependences` returned: under which quota and charged to which budget
   * step (default: as it comes). Every object the input names must still be alive.
   */
  readonly later?: <T>(exact: () => T) => T;
}

export interface AccessUnion {
  /** [params] -> { Stmt[..] -> MemRef[..] }, each restricted to the statement's domain */
  reads: UnionMap;
  mustWrites: UnionMap;
  mayWrites: UnionMap;
}

export const dependenceKinds = ['raw', 'war', 'waw'] as const;
export type DependenceKind = (typeof dependenceKinds)[number];

interface ExactDependences {
  readonly raw: DependencePair;
  readonly war: DependencePair;
  readonly waw: DependencePair;
  readonly carried: ReadonlyMap<ScopLoop, readonly string[]>;
}

/**
 * The parallel loops now; RAW/WAR/WAW for arrays and scalars, and the kinds each
 * loop carries, when first read (every isl object of them kept in `ctx`).
 */
export function computeDependences(ctx: Ctx, input: DependenceInput): Dependences {
  // Kept: the exact relations may be computed from them after this call's scope ended.
  const array = keep(collect(input.statements, input.schedule, false));
  const scalar = keep(collect(input.statements, input.schedule, true));
  // [params] -> { Source[..] -> Sink[..] }: the scalars' flow, also the exact relation's RAW (scalar)
  const scalarFlow = flow(input, scalar.reads, scalar.mustWrites, scalar.mayWrites, undefined).keep();
  // [params] -> { S[..] -> T[..] : S writes an array element T reads or writes }
  const conflicts = conflictsOf(array);
  // A scalar is an SSA value: every instance defines a fresh one, so write-after-read and
  // write-after-write on its virtual location vanish once each iteration keeps its own
  // copy (what code generation from the model does anyway). Only a scalar's flow
  // (a value, or a PHI's incoming value, used in a later iteration) keeps a loop sequential.
  const parallelLoops = input.loops.filter((loop) => !carries(ctx, input, loop, conflicts, input.assumedContext) && !carries(ctx, input, loop, scalarFlow));

  let exact: ExactDependences | undefined;
  const run = input.later ?? (<T>(fn: () => T): T => fn());
  // isl counts the same operations every time: once the dataflow ran out of a quota, asking again
  // with no more room fails the same way, so it fails at once instead of spending it again.
  let gaveUp: { error: IslQuotaError; room: number } | undefined;
  const exactly = (): ExactDependences => (exact ??= run(() => {
    const room = ctx.maxOperations === 0 ? Infinity : ctx.maxOperations - ctx.operations;
    // A retry with a sliver more room (what another step happened to spend first) would spend a
    // whole quota again to fail where it failed (nussinov: 1M operations): only 1% more is tried.
    if (gaveUp !== undefined && room <= gaveUp.room * 1.01) throw gaveUp.error;
    try {
      return ctx.scope(() => exactDependences(ctx, input, array, scalar, scalarFlow));
    } catch (e) {
      if (e instanceof IslQuotaError) gaveUp = { error: e, room };
      throw e;
    }
  }));
  return {
    get raw() {
      return exactly().raw;
    },
    get war() {
      return exactly().war;
    },
    get waw() {
      return exactly().waw;
    },
    parallelLoops,
    get carried() {
      return exactly().carried;
    },
    carriesFlow(loop, via) {
      // A parallel loop carries no conflicting pair of array accesses and no scalar flow (see
      // conflictsOf): no flow of the dataflow either, which then need not be computed (issue 16).
      if (parallelLoops.includes(loop)) return false;
      // The scalars' flow is exact already (the relation `carried` reads as RAW (scalar)).
      if (via === undefined && carries(ctx, input, loop, scalarFlow)) return true;
      // An element one statement alone in the loop reads and writes in every iteration of it
      // (a sum kept in memory): a RAW (array) pair the exact dataflow has too (issue 16).
      if (rereadAcrossIterations(ctx, input, loop)) return true;
      const kinds = exactly().carried.get(loop) ?? [];
      return kinds.some((k) => k.startsWith(via === 'array' ? 'RAW (array)' : 'RAW'));
    },
  };
}

/** Array (or scalar) accesses of `statements`, as isl's dataflow takes them; `like` gives the parameters. */
function collect(statements: readonly ScopStatementModel[], like: UnionMap, scalar: boolean): AccessUnion {
  return collectAccesses(statements, like, (a) => (a.array.kind !== 'array') === scalar);
}

/** The accesses of `statements` that `take` picks, as isl's dataflow takes them; `like` gives the parameters. isl objects in the caller's scope. */
export function collectAccesses(statements: readonly ScopStatementModel[], like: UnionMap, take: (a: ScopStatementModel['accesses'][number]) => boolean): AccessUnion {
  let reads = emptyLike(like);
  let mustWrites = emptyLike(like);
  let mayWrites = emptyLike(like);
  for (const s of statements) {
    for (const a of s.accesses) {
      if (!take(a)) continue;
      // A wrapping relation goes in as "any element of the array, maybe" (more
      // dependences, never fewer): isl's dataflow on it is not bounded by the quota.
      const wraps = wrapsAround(a.relation);
      // [params] -> { Stmt_S[..] -> MemRef[..] }
      const r = (wraps ? IslMap.universe(a.relation.getSpace()) : a.relation).intersectDomain(s.domain).toUnionMap();
      if (a.kind === 'read') reads = reads.union(r);
      else if (a.certainty === 'must' && !wraps) mustWrites = mustWrites.union(r);
      else mayWrites = mayWrites.union(r);
    }
  }
  return { reads, mustWrites, mayWrites };
}

function keep(a: AccessUnion): AccessUnion {
  return { reads: a.reads.keep(), mustWrites: a.mustWrites.keep(), mayWrites: a.mayWrites.keep() };
}

function emptyLike(u: UnionMap): UnionMap {
  return u.subtract(u);
}

/** [params] -> { Source[..] -> Sink[..] }: the last sources of every sink instance, where the model is exact. */
function flow(input: DependenceInput, sink: UnionMap, must: UnionMap, may: UnionMap, kill: UnionMap | undefined): UnionMap {
  return dataflow(input.schedule, sink, must, may, kill).getMayDependence().intersectParams(input.assumedContext).coalesce();
}

/** isl's dataflow in `schedule`'s order: the last sources (`must`, `may`) of every instance of `sink`, and the sinks with none. */
function dataflow(schedule: UnionMap, sink: UnionMap, must: UnionMap, may: UnionMap, kill: UnionMap | undefined): UnionFlow {
  // { Sink[..] -> Memory[..] } read by sinks; sources write (or read) the same locations
  let info = UnionAccessInfo.fromSink(sink).setMustSource(must).setMaySource(may).setScheduleMap(schedule);
  if (kill !== undefined) info = info.setKill(kill);
  return info.computeFlow();
}

/** isl's dataflow of `a`, its reads from its writes, in `schedule`'s order. isl objects in the caller's scope. */
export function readsFromWrites(schedule: UnionMap, a: AccessUnion): UnionFlow {
  return dataflow(schedule, a.reads, a.mustWrites, a.mayWrites, undefined);
}

/**
 * Which instances of which statements touch an element another one writes:
 * [params] -> { S[..] -> T[..] : S writes an element T reads or writes } (both orders,
 * and S = T, not restricted to the model's assumptions).
 *
 * A loop carries one of these pairs exactly when it carries an array dependence of the
 * dataflow (RAW, WAR or WAW): one way, the dataflow's pairs are such pairs; the other, take
 * the accesses to the pair's element between its two instances, in schedule order. All of
 * them run in the same iterations of the loops around the loop (they sit between two
 * instances that do), so two consecutive ones are in different iterations of it. If one of
 * those two is a write, nothing between them kills it, and they are a RAW, WAR or WAW pair
 * of the dataflow. If both are reads, the last write at or before the first (RAW to the
 * second), or else the first write at or after the second (WAR from the first; the pair
 * has a write), has only reads between itself and them: again a pair of the dataflow,
 * with its two ends in different iterations of the loop.
 */
function conflictsOf(accesses: AccessUnion): UnionMap {
  // [params] -> { Stmt[..] -> MemRef[..] }
  const writes = accesses.mustWrites.union(accesses.mayWrites);
  return writes.applyRange(writes.union(accesses.reads).reverse());
}

/**
 * [params] -> { S[..] -> T[..] : S writes an array element (with `scalar`: a scalar or PHI
 * location) that T reads or writes }, over the instances of `statements`; a wrapping access
 * relation counts as touching the whole array. `like` gives the parameters. isl objects in the
 * caller's scope.
 */
export function accessConflicts(statements: readonly ScopStatementModel[], like: UnionMap, scalar: boolean): UnionMap {
  return conflictsOf(collect(statements, like, scalar));
}

/**
 * True when `loop` holds one statement S (in it or in loops inside it) that reads, through an
 * access equal to one of its must-writes W, the element W writes, and W's element depends only on
 * the loops around `loop`; and some iteration of those loops (where the model is exact) runs S in
 * two iterations of `loop`. Then the exact dataflow's RAW (array) has a pair `loop` carries:
 * take an instance x2 of S first in its iteration of `loop`, with an earlier one in the same
 * iterations of the loops around; the instance x1 of S just before x2 is in an earlier iteration
 * of `loop` (nothing but S runs in it), writes the element x2 reads (W's element is the same for
 * both), and nothing runs between them: x1 is x2's last source. A sufficient test only (false
 * says nothing), without the dataflow: nussinov's and -O3's unpromoted sums, `C[i][j] +=` in k.
 */
function rereadAcrossIterations(ctx: Ctx, input: DependenceInput, loop: ScopLoop): boolean {
  const inside = input.statements.filter((st) => st.loops.includes(loop));
  if (inside.length !== 1) return false;
  const s = inside[0]!;
  const d = loop.depth - 1;
  type Access = ScopStatementModel['accesses'][number];
  // A store and a load of one pointer value: isl is asked only about such pairs (the relations
  // are then compared all the same).
  const pointer = (a: Access) => (a.array.kind !== 'array' || a.instruction === undefined ? undefined : a.instruction.operands[a.kind === 'read' ? 0 : 1]);
  const reads = s.accesses.filter((a) => a.kind === 'read' && pointer(a) !== undefined);
  const rereadOf = (w: Access) => reads.filter((r) => r.array === w.array && pointer(r) === pointer(w));
  const writes = s.accesses.filter((a) => a.kind === 'write' && a.certainty === 'must' && pointer(a) !== undefined && rereadOf(a).length > 0 && !wrapsAround(a.relation));
  if (writes.length === 0) return false;
  return ctx.scope(() => {
    // { S[i..] -> S[j..] : same iterations of the loops around, different ones of `loop` }, both in S's domain
    const pairs = carriedPairs(ctx, { name: s.name, dims: s.loops.length }, { name: s.name, dims: s.loops.length }, d).intersectDomain(s.domain).intersectRange(s.domain);
    if (pairs.intersectParams(input.assumedContext).isEmpty()) return false;
    for (const w of writes) {
      // [params] -> { S[i..] -> MemRef_A[..] }
      const written = w.relation.intersectDomain(s.domain);
      if (!written.isSingleValued() || !rereadOf(w).some((r) => !wrapsAround(r.relation) && r.relation.intersectDomain(s.domain).isEqual(written))) continue;
      // The element of each paired instance is its own: W's element does not depend on `loop` or loops inside it.
      if (pairs.applyRange(written).isSubset(written.intersectDomain(pairs.domain()))) return true;
    }
    return false;
  });
}

/** RAW/WAR/WAW of arrays and scalars by isl's dataflow, and the kinds each loop carries. */
function exactDependences(ctx: Ctx, input: DependenceInput, array: AccessUnion, scalar: AccessUnion, scalarFlow: UnionMap): ExactDependences {
  const make = (kind: DependenceKind, a: AccessUnion): UnionMap => {
    const writes = a.mustWrites.union(a.mayWrites);
    switch (kind) {
      case 'raw':
        return flow(input, a.reads, a.mustWrites, a.mayWrites, undefined);
      case 'war':
        return flow(input, writes, emptyLike(input.schedule), a.reads, a.mustWrites);
      case 'waw':
        return flow(input, writes, a.mustWrites, a.mayWrites, undefined);
    }
  };
  const pair = (kind: DependenceKind): DependencePair => ({
    array: make(kind, array).keep(),
    scalar: kind === 'raw' ? scalarFlow : make(kind, scalar).keep(),
  });
  const deps = { raw: pair('raw'), war: pair('war'), waw: pair('waw') };

  const carried = new Map<ScopLoop, string[]>();
  // [params] -> { Source[..] -> Sink[..] } of every kind: most loops carry none of it, one test each.
  let all = emptyLike(input.schedule);
  for (const kind of dependenceKinds) all = all.union(deps[kind].array).union(deps[kind].scalar);
  for (const loop of input.loops) {
    const kinds: string[] = [];
    carried.set(loop, kinds);
    if (!carries(ctx, input, loop, all)) continue;
    for (const kind of dependenceKinds) {
      for (const via of ['array', 'scalar'] as const) {
        if (carries(ctx, input, loop, deps[kind][via])) kinds.push(`${kind.toUpperCase()} (${via})`);
      }
    }
  }
  return { ...deps, carried };
}

/**
 * True when an access relation divides by 2^16 or more: modulo-2^n subscripts
 * (`(…) mod 4294967296 = o0`, from 32-bit offsets that may wrap). On such relations
 * isl_union_access_info_compute_flow runs for minutes in work that isl's operations
 * quota does not stop (isl counts allocations and tableau pivots only); as "anywhere in
 * the array" the same flow is quick.
 */
export function wrapsAround(relation: { toStr(): string }): boolean {
  for (const m of relation.toStr().matchAll(/\bmod (\d+)|\)\/(\d+)\)/g)) {
    if (BigInt(m[1] ?? m[2]!) >= 1n << 16n) return true;
  }
  return false;
}

/**
 * True when `deps` has a pair of instances of statements inside `loop`, in the
 * same iteration of every loop around it but in different iterations of `loop`
 * (and parameters in `within`, when given): a dependence carried by it. Both
 * statements count `loop` with dimension depth-1 and its outer loops with the
 * dimensions before, so the test is one map per statement pair `deps` relates,
 * without going to schedule time.
 */
export function carries(ctx: Ctx, input: DependenceInput, loop: ScopLoop, deps: UnionMap, within?: IslSet): boolean {
  return ctx.scope(() => {
    const inside = new Map(input.statements.filter((s) => s.loops.includes(loop)).map((s) => [s.name, s] as const));
    const k = loop.depth - 1;
    // One statement pair at a time: the first one carried answers (most loops that carry
    // anything carry several pairs, and `within` can be costly to intersect with).
    for (const m of deps.getMapList().toArray()) {
      const s = inside.get(m.getTupleName(DimType.in) ?? '');
      const t = inside.get(m.getTupleName(DimType.out) ?? '');
      if (s === undefined || t === undefined) continue;
      // { S[i..] -> T[j..] : same outer iterations, different iterations of the loop }
      const carried = m.intersect(carriedPairs(ctx, { name: s.name, dims: s.loops.length }, { name: t.name, dims: t.loops.length }, k));
      if (!(within ? carried.intersectParams(within) : carried).isEmpty()) return true;
    }
    return false;
  });
}

/**
 * { S[i..] -> T[j..] : i_d = j_d for d < k, i_k != j_k }, built once per context: `carries` asks
 * the same statement pairs of the same loop for the conflicts, the scalar flow and each kind of
 * the exact dataflow (building it again was 1.6% of tsopt's CPU on PolyBench, as text). Kept
 * with the context, freed with it.
 */
function carriedPairs(ctx: Ctx, s: Tuple, t: Tuple, k: number): IslMap {
  let byKey = pairMaps.get(ctx);
  if (byKey === undefined) pairMaps.set(ctx, (byKey = new Map()));
  const key = `${s.name}[${s.dims}] ${t.name}[${t.dims}] ${k}`;
  let m = byKey.get(key);
  if (m === undefined) {
    const pairs = relationOf(tupleMapSpace(ctx, s, t), (i, j, wrapped) => equalUpTo(wrapped, i, j, k).intersect(i[k]!.neSet(j[k]!)));
    byKey.set(key, (m = pairs.keep()));
  }
  return m;
}
const pairMaps = new WeakMap<Ctx, Map<string, IslMap>>();

// Dependences of a SCoP from isl's dataflow analysis (Polly's DependenceInfo):
// read-after-write, write-after-read and write-after-write, each computed
// separately for array elements and for scalar/PHI locations, and the loops
// that carry none of them.
//
// isl_union_access_info_compute_flow gives, for every sink instance, the last
// source instances before it (exact for must sources, all candidates for may
// sources); `get_may_dependence` is the union of both, a map
// { SourceStmt[..] -> SinkStmt[..] }.
import { type Ctx, type Set as IslSet, type UnionMap, type UnionSet, UnionAccessInfo } from 'isl-wasm';
import type { ScopLoop } from '../passes/analysis/scop-detection-types';
import type { DependencePair, Dependences, ScopStatementModel } from './model';

export interface DependenceInput {
  readonly statements: readonly ScopStatementModel[];
  readonly loops: readonly ScopLoop[];
  /** [params] -> { Stmt[..] -> [t0, ..., t2D] } */
  readonly schedule: UnionMap;
  /** [params] -> { : ... } where the model is exact; dependences are restricted to it. */
  readonly assumedContext: IslSet;
  /** Number of schedule dimensions (2D+1). */
  readonly scheduleDepth: number;
}

interface AccessUnion {
  /** [params] -> { Stmt[..] -> MemRef[..] }, each restricted to the statement's domain */
  reads: UnionMap;
  mustWrites: UnionMap;
  mayWrites: UnionMap;
}

export const dependenceKinds = ['raw', 'war', 'waw'] as const;
export type DependenceKind = (typeof dependenceKinds)[number];

/** Computes RAW/WAR/WAW for arrays and scalars, and the loops that carry none. */
export function computeDependences(ctx: Ctx, input: DependenceInput): Dependences {
  const empty = (): UnionMap => input.schedule.subtract(input.schedule);
  const collect = (scalar: boolean): AccessUnion => {
    const out: AccessUnion = { reads: empty(), mustWrites: empty(), mayWrites: empty() };
    for (const s of input.statements) {
      for (const a of s.accesses) {
        if ((a.array.kind !== 'array') !== scalar) continue;
        const r = a.relation.intersectDomain(s.domain).toUnionMap();
        if (a.kind === 'read') out.reads = out.reads.union(r);
        else if (a.certainty === 'must') out.mustWrites = out.mustWrites.union(r);
        else out.mayWrites = out.mayWrites.union(r);
      }
    }
    return out;
  };
  const array = collect(false);
  const scalar = collect(true);

  const flow = (sink: UnionMap, must: UnionMap, may: UnionMap, kill: UnionMap | undefined): UnionMap => {
    // { Sink[..] -> Memory[..] } read by sinks; sources write (or read) the same locations
    let info = UnionAccessInfo.fromSink(sink).setMustSource(must).setMaySource(may).setScheduleMap(input.schedule);
    if (kill !== undefined) info = info.setKill(kill);
    // [params] -> { Source[..] -> Sink[..] }
    return info.computeFlow().getMayDependence().intersectParams(input.assumedContext).coalesce();
  };
  const pairFor = (kind: DependenceKind): DependencePair => {
    const make = (a: AccessUnion): UnionMap => {
      const writes = a.mustWrites.union(a.mayWrites);
      switch (kind) {
        case 'raw':
          return flow(a.reads, a.mustWrites, a.mayWrites, undefined);
        case 'war':
          return flow(writes, empty(), a.reads, a.mustWrites);
        case 'waw':
          return flow(writes, a.mustWrites, a.mayWrites, undefined);
      }
    };
    return { array: make(array), scalar: make(scalar) };
  };
  const deps = { raw: pairFor('raw'), war: pairFor('war'), waw: pairFor('waw') };

  const carried = new Map<ScopLoop, string[]>();
  const parallelLoops: ScopLoop[] = [];
  for (const loop of input.loops) {
    const kinds: string[] = [];
    for (const kind of dependenceKinds) {
      for (const via of ['array', 'scalar'] as const) {
        if (carries(ctx, input, loop, deps[kind][via])) kinds.push(`${kind.toUpperCase()} (${via})`);
      }
    }
    carried.set(loop, kinds);
    if (kinds.length === 0) parallelLoops.push(loop);
  }
  return { ...deps, parallelLoops, carried };
}

/**
 * True when `deps` has a pair of instances in the same iteration of every loop
 * around `loop` but in different iterations of `loop`: a dependence carried by it.
 */
export function carries(ctx: Ctx, input: DependenceInput, loop: ScopLoop, deps: UnionMap): boolean {
  return ctx.scope(() => {
    if (deps.isEmpty()) return false;
    // [params] -> { Stmt[..] } of the statements inside `loop`
    let inside: UnionSet | undefined;
    for (const s of input.statements) {
      if (!s.loops.includes(loop)) continue;
      const d = s.domain.toUnionSet();
      inside = inside === undefined ? d : inside.union(d);
    }
    if (inside === undefined) return false;
    // [params] -> { [t..] -> [t'..] } in schedule time
    const timed = deps.intersectDomain(inside).intersectRange(inside).applyDomain(input.schedule).applyRange(input.schedule);
    if (timed.isEmpty()) return false;
    // Schedule dimension of the loop's counter: 2 * depth - 1 in the 2D+1 form.
    const dim = 2 * loop.depth - 1;
    const names = Array.from({ length: input.scheduleDepth }, (_, k) => `d${k}`);
    const conditions = [...names.slice(0, dim).map((n) => `${n} = 0`), `${names[dim]} != 0`];
    // { [d..] : equal before the loop, different at the loop }
    const carriedDistance = ctx.unionSet(`{ [${names.join(', ')}] : ${conditions.join(' and ')} }`);
    return !timed.deltas().intersect(carriedDistance).isEmpty();
  });
}

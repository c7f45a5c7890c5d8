// Dependences of a SCoP from isl's dataflow analysis (Polly's DependenceInfo):
// read-after-write, write-after-read and write-after-write, each computed
// separately for array elements and for scalar/PHI locations, and the loops
// that carry none of them.
//
// isl_union_access_info_compute_flow gives, for every sink instance, the last
// source instances before it (exact for must sources, all candidates for may
// sources); `get_may_dependence` is the union of both, a map
// { SourceStmt[..] -> SinkStmt[..] }.
import { type Ctx, Map as IslMap, type Set as IslSet, type UnionMap, UnionAccessInfo } from 'isl-wasm';
import type { ScopLoop } from '../passes/analysis/scop-detection-types';
import type { DependencePair, Dependences, ScopStatementModel } from './model';

export interface DependenceInput {
  readonly statements: readonly ScopStatementModel[];
  readonly loops: readonly ScopLoop[];
  /** [params] -> { Stmt[..] -> [t0, ..., t2D] } */
  readonly schedule: UnionMap;
  /** [params] -> { : ... } where the model is exact; dependences are restricted to it. */
  readonly assumedContext: IslSet;
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
        // A wrapping relation goes in as "any element of the array, maybe" (more
        // dependences, never fewer): isl's dataflow on it is not bounded by the quota.
        const wraps = wrapsAround(a.relation);
        // [params] -> { Stmt_S[..] -> MemRef[..] }
        const r = (wraps ? IslMap.universe(a.relation.getSpace()) : a.relation).intersectDomain(s.domain).toUnionMap();
        if (a.kind === 'read') out.reads = out.reads.union(r);
        else if (a.certainty === 'must' && !wraps) out.mustWrites = out.mustWrites.union(r);
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

  // A scalar is an SSA value: every instance defines a fresh one, so write-after-read and
  // write-after-write on its virtual location vanish once each iteration keeps its own
  // copy (what code generation from the model does anyway). Only a scalar's flow
  // (a value, or a PHI's incoming value, used in a later iteration) keeps a loop sequential.
  const carried = new Map<ScopLoop, string[]>();
  const parallelLoops: ScopLoop[] = [];
  // [params] -> { Source[..] -> Sink[..] } of every kind: most loops carry none of it, one test each.
  let all = empty();
  for (const kind of dependenceKinds) all = all.union(deps[kind].array).union(deps[kind].scalar);

  for (const loop of input.loops) {
    const kinds: string[] = [];
    let blocking = false;
    if (!carries(ctx, input, loop, all)) {
      carried.set(loop, kinds);
      parallelLoops.push(loop);
      continue;
    }
    for (const kind of dependenceKinds) {
      for (const via of ['array', 'scalar'] as const) {
        if (!carries(ctx, input, loop, deps[kind][via])) continue;
        kinds.push(`${kind.toUpperCase()} (${via})`);
        if (via === 'array' || kind === 'raw') blocking = true;
      }
    }
    carried.set(loop, kinds);
    if (!blocking) parallelLoops.push(loop);
  }
  return { ...deps, parallelLoops, carried };
}

/**
 * True when an access relation divides by 2^16 or more: modulo-2^n subscripts
 * (`(…) mod 4294967296 = o0`, from 32-bit offsets that may wrap). On such relations
 * isl_union_access_info_compute_flow runs for minutes in work that isl's operations
 * quota does not stop (isl counts allocations and tableau pivots only; seed 12 of the
 * robustness kernels: over 40 s under a quota of 1,000,000 operations, no quota error);
 * as "anywhere in the array" the same flow takes 0.3 s.
 */
export function wrapsAround(relation: { toStr(): string }): boolean {
  for (const m of relation.toStr().matchAll(/\bmod (\d+)|\)\/(\d+)\)/g)) {
    if (BigInt(m[1] ?? m[2]!) >= 1n << 16n) return true;
  }
  return false;
}

/**
 * True when `deps` has a pair of instances of statements inside `loop`, in the
 * same iteration of every loop around it but in different iterations of `loop`:
 * a dependence carried by it. Both statements count `loop` with dimension
 * depth-1 and its outer loops with the dimensions before, so the test is a
 * union of maps between statement pairs, without going to schedule time.
 */
export function carries(ctx: Ctx, input: DependenceInput, loop: ScopLoop, deps: UnionMap): boolean {
  return ctx.scope(() => {
    if (deps.isEmpty()) return false;
    const inside = input.statements.filter((s) => s.loops.includes(loop));
    if (inside.length === 0) return false;
    const k = loop.depth - 1;
    const same = Array.from({ length: k }, (_, d) => `j${d} = i${d}`);
    const pieces: string[] = [];
    for (const s of inside) {
      for (const t of inside) {
        const src = s.loops.map((_, d) => `i${d}`).join(', ');
        const dst = t.loops.map((_, d) => `j${d}`).join(', ');
        pieces.push(`${s.name}[${src}] -> ${t.name}[${dst}] : ${[...same, `j${k} != i${k}`].join(' and ')}`);
      }
    }
    // { S[i..] -> T[j..] : same outer iterations, different iterations of the loop }
    const carried = ctx.unionMap(`{ ${pieces.join('; ')} }`);
    return !deps.intersect(carried).isEmpty();
  });
}

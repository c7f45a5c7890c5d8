// Wavefronts of time tiles (--parallel; transform/time-tiling.ts): parallelogram tiles of one
// time band depend on their neighbour along the skewed space members, so no tile loop of the
// tiled band carries nothing. Counted along a wavefront they do, as Pluto's tile-level wavefront:
//
//   tile loops  T0 (time), T1, .., TD        ──►   w = T0 + T1   (sequential: one wavefront after another)
//                                                  T1            (tsopt_parallel_tile: the tiles of one wavefront)
//                                                  T2, .., TD    (sequential, as before)
//
// The band is permutable (every member non-decreasing along every dependence), so are its tile
// coordinates: a dependence between two tiles moves T0 and T1 by d0, d1 >= 0, and two tiles of
// one wavefront (d0 + d1 = 0) are at the same T0 and T1. The T1 loop then carries nothing, which
// `wavefrontCarriesNothing` checks with isl on the dependences themselves before the mark is set.
// The tree's legality follows from two cheaper checks (transform/time-tiling.ts, `check`): every
// tile coordinate non-decreasing along every dependence, and the same tiles in time band order
// checked against every dependence as any time-tiled tree.
// One thread runs the tiles in wavefront order instead of time band by time band, which reuses
// less between consecutive tiles (in a time band, the next tile re-reads much of what the last
// one touched): PolyBench LARGE jacobi-2d took 1.37x the CPU time on one thread, heat-3d 1.15x.
// So the wavefront is on by default only with --parallel (tscc -fopenmp), where the tiles of a
// wavefront share out over the threads (jacobi-2d LARGE, two threads under load: 421 + 409 ms
// of CPU in the outlined wavefronts against 853 ms single-threaded; --time-tile-wavefront=false
// turns it off). Sizes must be constants: with parameters, isl's AST of the wavefronts
// runs over the codegen quota (jacobi 2,583,397 operations against 121,678 without wavefronts;
// PolyBench LARGE: 55,511 against 48,799), and the SCoP would lose its time tiles altogether.
import { type Aff, DimType, type MultiUnionPwAff, UnionMap, UnionSet } from 'isl-wasm';
import type { ScopModel, ScopStatementModel } from '../polyhedral/model';
import { pointMapSpace, samePrefixOtherLastMap } from '../polyhedral/relations';
import { parallelTileMark, sequentialMark } from './schedule-optimizer';

/** One tile loop of the band as the tree builder inserts it: its member per statement, and its mark. */
export interface TileLoop {
  readonly member: (st: ScopStatementModel) => Aff;
  readonly mark: string;
}

/**
 * The tile loops of a time-tiled band of `members` members, `tile(st, m)` the tile coordinate of
 * member m: as they are (all sequential), or in wavefronts of T0 + T1 (`depth` 2) or
 * T0 + T1 + T2 (`depth` 3, see `wavefrontFront`) with T1 parallel.
 */
export function timeTileLoops(tile: (st: ScopStatementModel, m: number) => Aff, members: number, wavefront: boolean, depth = 2): TileLoop[] {
  return Array.from({ length: members }, (_, m): TileLoop => {
    if (wavefront && m === 0) return { member: (st) => wavefrontFront(tile, st, members, depth), mark: sequentialMark };
    if (wavefront && m === 1) return { member: (st) => tile(st, 1), mark: parallelTileMark };
    return { member: (st) => tile(st, m), mark: sequentialMark };
  });
}

/**
 * The wavefront of statement `st`'s tile: the sum of its first `depth` tile coordinates (at
 * least T0 + T1, at most all `members`). Any dependence moves every tile coordinate by d >= 0,
 * so two tiles of one wavefront (their d summing to 0) are independent whatever the depth; a
 * deeper sum holds more tiles per wavefront (heat-3d LARGE at 4 x 8 x 8: at most 8 with
 * T0 + T1, 16 with T0 + T1 + T2), which share out more evenly over the threads
 * (bench/probes/wavefront-balance.c). T0 follows from w and the inner tile loops.
 */
export function wavefrontFront(tile: (st: ScopStatementModel, m: number) => Aff, st: ScopStatementModel, members: number, depth: number): Aff {
  let front = tile(st, 0).add(tile(st, 1));
  for (let m = 2; m < Math.min(depth, members); m++) front = front.add(tile(st, m));
  return front;
}

/**
 * Why the tiles of `model`'s time-tiled band cannot run in wavefronts of `w` whose tiles `t` run
 * in parallel (see the head of this file), or undefined when they can.
 */
export function wavefrontRefused(model: ScopModel, deps: UnionMap, w: MultiUnionPwAff, t: MultiUnionPwAff): string | undefined {
  if (model.context.dim(DimType.param) > 0) return 'parametric sizes';
  return wavefrontCarriesNothing(model, deps, w, t) ? undefined : 'a dependence joins two tiles of one wavefront';
}

/**
 * No dependence of `deps` ([params] -> { S[..] -> T[..] }) joins two instances at the same
 * wavefront `w` and different tiles `t` ({ S[..] -> [..] } each, one member): the loop over t
 * inside the loop over w carries nothing.
 */
function wavefrontCarriesNothing(model: ScopModel, deps: UnionMap, w: MultiUnionPwAff, t: MultiUnionPwAff): boolean {
  // { S[..] -> [w, t] }
  const prefix = UnionMap.fromMultiUnionPwAff(w.flatRangeProduct(t));
  // { [w, t] -> [w', t'] } per dependence
  const images = deps.applyDomain(prefix).applyRange(prefix);
  // { [a, b] -> [a, d] : d != b }
  return images.intersect(samePrefixOtherLastMap(pointMapSpace(model.ctx, 2, 2)).toUnionMap()).isEmpty();
}

/** Most column offsets a column of the wavefronts may wait for (stencils need 2 or 3). */
const maxColumnDeltas = 16;

/**
 * The columns (w, t) of the wavefronts (`w`, and `t` the loop on the threads) that a column
 * depends on, as offsets (dw, dt) >= (1, ..): the deltas of every dependence of `deps` between two
 * different columns, counted by isl. A column run as soon as the columns at these offsets are
 * done runs after every instance it depends on (codegen/ast-to-ir.ts, point-to-point tile
 * synchronisation). Undefined when the offsets are more than `maxColumnDeltas` or unbounded.
 */
export function wavefrontColumnDeltas(deps: UnionMap, w: MultiUnionPwAff, t: MultiUnionPwAff): [number, number][] | undefined {
  // { S[..] -> [w, t] }
  const prefix = UnionMap.fromMultiUnionPwAff(w.flatRangeProduct(t));
  // { [dw, dt] } of every dependence
  let left: UnionSet = deps.applyDomain(prefix).applyRange(prefix).deltas();
  const out: [number, number][] = [];
  for (let k = 0; k <= maxColumnDeltas && !left.isEmpty(); k++) {
    const point = left.samplePoint();
    const values = point.getMultiVal();
    const delta: [number, number] = [values.getAt(0).getNumSi(), values.getAt(1).getNumSi()];
    // Within a column the tiles and points keep the dependences' order.
    if (delta[0] !== 0 || delta[1] !== 0) out.push(delta);
    left = left.subtract(UnionSet.fromPoint(point));
  }
  // Every offset reaches an earlier wavefront (the claims' order then guarantees progress).
  return left.isEmpty() && out.length <= maxColumnDeltas && out.every(([dw]) => dw >= 1) ? out.sort((a, b) => a[0] - b[0] || a[1] - b[1]) : undefined;
}

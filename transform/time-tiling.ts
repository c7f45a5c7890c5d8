// Time tiling of iterative stencils (jacobi-2d, heat-3d, fdtd-2d, seidel-2d): the time loop carries the
// reuse (what a sweep writes, the next one reads), so tiles must cut across time steps. isl's
// scheduler runs out of its quota on these SCoPs, and the space loops alone are tiled for
// nothing (each sweep streams every array once), so the schedule is built here, the way Pluto
// does for stencils: parallelogram tiles of a skewed band.
//
//   S[t, x1..xk] ──► band [t, s*t + x1 + c_S1, .., s*t + xk + c_Sk]   (a statement with fewer
//                        space loops: aligned with the loops it sits in, or innermost in loops of
//                        its own, constants for the other members; memberOffsets)
//   tree:  tile loops floor(member / size), all members          (parallelogram tiles)
//          point loops t, x1' .. x(D-1)'                           (one tile, in time order)
//          sequence of the statements in their original order
//            point loop xD' per statement                          (stride 1, vectorized)
//
// The skew s (the same for every space member) and the shifts c come from the dependences:
// every member must be non-decreasing along every dependence (that makes the band permutable,
// so tiling it is legal). For a pair S -> T and member m, with d the least value of
// s*(t' - t) + x'_m - x_m over the dependence, the shifts must satisfy c_T - c_S >= -d: a system
// of difference constraints, solved by longest paths (Bellman-Ford); a positive cycle means
// the skew is too small. Then the whole tree is checked against every dependence (the image of
// each pair is lexicographically increasing), and each innermost loop is marked parallel only
// where isl proves it carries nothing: a loop that does keeps its order (`tsopt_sequential`).
//
// In-place updates (seidel-2d: A[i][j-1] and A[i-1][j+1] are this sweep's values): no plain skew
// orders the read of A[i-1][j+1] (distance (0, 1, -1)), so the `triangular` form is tried, where
// each space member also adds the counter outside it: [t, s*t + i, s*t + i + j]. Its innermost
// loop still carries the chain A[i][j-1] -> A[i][j], whose latency bounds the kernel (tiles do
// not shorten it, and reassociation is not allowed); so each tile is walked by wavefronts:
// point loops t, .., x(D-1)' + xD', then x(D-1)' innermost, whose points isl proves independent
// (the CPU overlaps their chains). Each point still computes its expression in its order.
//
// Not taken (the caller then runs isl's scheduler as before), with the reason:
//   - one space dimension (jacobi-1d): a time step touches vectors, which stay in the caches
//     across time steps anyway;
//   - an innermost loop carries a dependence, and so does the wavefront's.
import { type Aff, DimType, type Map as IslMap, MultiAff, MultiUnionPwAff, Schedule, type ScheduleNode, UnionMap, UnionPwAff, UnionSetList } from 'isl-wasm';
import type { ScopModel, ScopStatementModel } from '../polyhedral/model';
import { lexLessMap, relationPerShape, samePrefixOtherLastMap } from '../polyhedral/relations';
import { counterAff } from '../polyhedral/schedule';
import type { CacheSizes } from './tile-sizes';
import { orderedDependences, parallelPointMark, sequentialMark, type ScheduleDecision } from './schedule-optimizer';
import { timeTileLoops, wavefrontColumnDeltas, wavefrontFront, wavefrontRefused } from './wavefront';
import { wavefrontHeight, type CountedStatement, type Linear } from './wavefront-shape';

export interface TimeTileOptions {
  readonly caches: CacheSizes;
  /** Bytes of the target's widest vector register. */
  readonly vectorBytes: number;
  /** --time-tile-sizes: the time tile height, then the space widths, outermost first (the last for members past the list). */
  readonly sizes: readonly number[] | undefined;
  /** Run the tiles in wavefronts whose tiles may run on threads (transform/wavefront.ts). */
  readonly tileWavefront?: boolean;
  /** --time-tile-wavefront-depth: how many tile coordinates a wavefront sums (transform/wavefront.ts). */
  readonly wavefrontDepth?: number;
  /** --time-tile-wavefront-threads: the threads the wavefronts' height is counted for (transform/wavefront-shape.ts). */
  readonly threads?: number;
  /**
   * --time-tile-one-thread-order: with tile wavefronts, also the tree one thread runs instead
   * (the tiles in time band order at the cache rule's height: single-thread tscc's tree), as
   * `ScheduleDecision.oneThreadSchedule`.
   */
  readonly oneThreadOrder?: boolean;
}

/** What time tiling did to one SCoP. */
export interface TimeTiled {
  /** Each space member moves by `skew` per time step. */
  readonly skew: number;
  /** Time tile height, then the widths along the skewed space members, outermost first. */
  readonly sizes: readonly number[];
  readonly why: string;
  /** Statements whose innermost loop is marked parallel (vectorized). */
  readonly parallelInnermost: readonly string[];
  /** The tiles run in wavefronts, the tiles of one on threads (transform/wavefront.ts). */
  readonly tileWavefront?: boolean;
  /**
   * With tile wavefronts: the offsets (dw, dt) of the columns (w, T1) a column depends on
   * (transform/wavefront.ts, `wavefrontColumnDeltas`), which point-to-point synchronisation waits
   * for; absent when isl found them unbounded or too many.
   */
  readonly tileColumnDeltas?: readonly (readonly [number, number])[];
  /** Why they do not, when tile wavefronts were asked for. */
  readonly tileWavefrontRefused?: string;
  /** The wavefronts' count behind the time tile height, when counted for threads (transform/wavefront-shape.ts). */
  readonly wavefrontHeight?: string;
  /** Each tile is walked by wavefronts of its last two space members (the innermost loop runs along one). */
  readonly wavefront: boolean;
  /** With tile wavefronts: the sizes of the tiles one thread runs in time band order (`oneThreadSchedule`), or why it has no such tree. */
  readonly oneThreadSizes?: readonly number[];
  readonly oneThreadRefused?: string;
}

/** Time tiling's answer: a decision, or why it did not apply (the caller goes on with isl's scheduler). */
export type TimeTileResult = { readonly decision: ScheduleDecision } | { readonly refused: string };

/** Largest skew tried: the stencils here need 1 (fdtd-2d) or 2 (jacobi-2d, heat-3d). */
const maxSkew = 4;
/** Bounds of the least dependence distance looked for per member (stencil reaches are small). */
const minDistance = -16;
const maxDistance = 16;

/**
 * The time-tiled schedule of `model` when it is an iterative stencil (see the head of this file),
 * kept in the model's context (the caller disposes it), or why not.
 */
export function timeTile(model: ScopModel, o: TimeTileOptions): TimeTileResult {
  const ctx = model.ctx;
  return ctx.scope((): TimeTileResult => {
    const notStencil = notAStencil(model);
    if (notStencil !== undefined) return { refused: notStencil };
    const looped = model.statements.filter((st) => st.loops.length > 0);
    const outside = model.statements.filter((st) => st.loops.length === 0);
    const space = Math.max(...looped.map((st) => st.loops.length - 1));

    // [params] -> { S[..] -> T[..] }: RAW, WAR, WAW of arrays and scalars
    const deps = orderedDependences(model);
    const ordered = inOriginalOrder(looped);
    let skew = 0;
    let shifts: Map<ScopStatementModel, number[]> | undefined;
    let form: SkewForm = 'plain';
    for (const f of skewForms) {
      if (shifts) break;
      for (let s = 1; s <= maxSkew && !shifts; s++) {
        shifts = solveShifts(model, ordered, deps, space, s, f);
        skew = s;
        form = f;
      }
    }
    if (!shifts) return { refused: `no skew up to ${maxSkew} makes every space member non-decreasing along the dependences` };

    const offsets = memberOffsets(ordered, space);
    /** Member m of the band for `st`: i0, or skew*i0 + its counters + its shift. */
    const member = (st: ScopStatementModel, m: number): Aff => {
      if (m === 0) return counterAff(st.domain, 0);
      const c = shifts!.get(st)![m - 1]!;
      const summed = memberCounters(st, m, offsets.get(st)!, form).reduce((a, k) => a.add(counterAff(st.domain, k)), counterAff(st.domain, 0).scaleVal(ctx.val(skew)));
      return summed.addConstantVal(ctx.val(c));
    };
    /** { S[..] -> [f(S)] } for every looped statement, as a one-member partial schedule. */
    const mupa = (f: (st: ScopStatementModel) => Aff, sts: readonly ScopStatementModel[] = ordered): MultiUnionPwAff =>
      MultiUnionPwAff.fromUnionPwAff(sts.map((st) => UnionPwAff.fromAff(f(st))).reduce((a, b) => a.unionAdd(b)));

    const arrays = new Set(looped.flatMap((st) => st.accesses.filter((a) => a.array.kind === 'array').map((a) => a.array)));
    const elementBytes = Math.max(1, ...[...arrays].map((a) => a.elementBytes));
    const { sizes, why } = o.sizes && o.sizes.length > 0
      ? { sizes: Array.from({ length: space + 1 }, (_, k) => o.sizes![Math.min(k, o.sizes!.length - 1)]!), why: 'given by --time-tile-sizes' }
      : timeTileSizes({ caches: o.caches, vectorBytes: o.vectorBytes, elementBytes, arrays: arrays.size, space, skew });
    // One thread's tiles (without wavefronts): before the height is counted for the threads.
    const serialSizes = [...sizes];
    // Wavefronts on threads: the height whose wavefronts share out best (transform/wavefront-shape.ts).
    const counted = o.tileWavefront === true && !(o.sizes && o.sizes.length > 0) && (o.wavefrontDepth ?? 2) === 2 && space >= 2 && model.context.dim(DimType.param) === 0
      ? wavefrontHeight(ordered.map((st) => countedStatement(st, member(st, 0), member(st, 1))), sizes[0]!, sizes[1]!, o.threads ?? 1, (h) =>
        arrays.size * elementBytes * sizes.slice(1, space).reduce((p, w) => p * (w + skew * h), 1) * sizes[space]! <= 2 * o.caches.l2)
      : undefined;
    if (counted) sizes[0] = counted.height;
    const sizeWhy = counted ? `${why}; ${counted.why}` : why;

    const mark = (node: ScheduleNode, name: string): ScheduleNode => node.insertMark(ctx.id(name)).child(0);
    /** Inserts one single-member band under its mark at `node`; returns the node below it. */
    const band = (node: ScheduleNode, f: (st: ScopStatementModel) => Aff, name: string, sts?: readonly ScopStatementModel[]): ScheduleNode =>
      mark(node.insertPartialSchedule(mupa(f, sts)), name).child(0);

    const tileOf = (of: readonly number[]) => (st: ScopStatementModel, m: number): Aff => member(st, m).scaleDownVal(ctx.val(of[m]!)).floor();
    const tile = tileOf(sizes);
    /**
     * Every tile coordinate at `of` non-decreasing along every dependence (the shifts make every
     * member so, and floor keeps it): then tiles run in wavefronts keep every dependence that the
     * same tiles in time band order keep (see `check`).
     */
    const tilesNonDecreasing = (of: readonly number[]): boolean => Array.from({ length: space + 1 }, (_, m) => m).every((m) => {
      // { S[..] -> [T_m] }
      const t = UnionMap.fromMultiUnionPwAff(mupa((st) => tileOf(of)(st, m)));
      // { [target's T_m] -> [source's T_m] } per dependence: none may run from a lower to a higher one
      const back = deps.applyDomain(t).applyRange(t).reverse();
      return back.intersect(lexLess(model, back)).isEmpty();
    });
    // { S[..] -> [w] } and { S[..] -> [T1] }: the wavefronts and their columns (transform/wavefront.ts).
    const columns = o.tileWavefront === true ? { front: mupa((st) => wavefrontFront(tile, st, space + 1, o.wavefrontDepth ?? 2)), column: mupa((st) => tile(st, 1)) } : undefined;
    const tileWavefrontRefusal = columns
      ? wavefrontRefused(model, deps, columns.front, columns.column) ?? (tilesNonDecreasing(sizes) ? undefined : 'a tile coordinate decreases along a dependence')
      : undefined;
    const tileWavefront = columns !== undefined && tileWavefrontRefusal === undefined;
    // The columns each column waits for when they run point to point (codegen/ast-to-ir.ts, generatePointSync).
    const columnDeltas = columns && tileWavefront ? wavefrontColumnDeltas(deps, columns.front, columns.column) : undefined;
    // How many tile coordinates a wavefront sums (transform/wavefront.ts).
    const frontDepth = Math.min(o.wavefrontDepth ?? 2, space + 1);
    /**
     * The tree (see the head of this file), the innermost loops of `parallel` marked parallel.
     * With `wavefront`, the last two point loops are the sum of the last two members, then the
     * last but one alone (innermost): the points of one wavefront of a tile, in-place updates
     * whose chain along the last member is cut across (seidel-2d). `tiles`: their sizes, and
     * whether they run in wavefronts (else in time band order).
     */
    const tree = (parallel: ReadonlySet<ScopStatementModel>, wavefront: boolean, tiles: { sizes: readonly number[]; fronts: boolean } = { sizes, fronts: tileWavefront }): Schedule => {
      let root = Schedule.fromDomain(model.domains).getRoot().child(0);
      let node: ScheduleNode;
      if (outside.length > 0) {
        // Statements outside every loop (-O3's loads of invariant values) run first, then the loops.
        const looping = ordered.map((st) => st.domain.toUnionSet()).reduce((a, b) => a.union(b));
        const before = outside.map((st) => st.domain.toUnionSet()).reduce((a, b) => a.union(b));
        root = root.insertSequence(UnionSetList.fromUnionSet(before).add(looping));
        node = root.child(1).child(0);
      } else {
        node = root;
      }
      for (const t of timeTileLoops(tileOf(tiles.sizes), space + 1, tiles.fronts, o.wavefrontDepth ?? 2)) node = band(node, t.member, t.mark);
      const outerPoints = wavefront ? space - 1 : space;
      for (let m = 0; m < outerPoints; m++) node = band(node, (st) => member(st, m), sequentialMark);
      if (wavefront) node = band(node, (st) => member(st, space - 1).add(member(st, space)), sequentialMark);
      const innermost = wavefront ? space - 1 : space;
      node = node.insertSequence(ordered.slice(1).reduce((l, st) => l.add(st.domain.toUnionSet()), UnionSetList.fromUnionSet(ordered[0]!.domain.toUnionSet())));
      ordered.forEach((st, k) => {
        const depth = node.getTreeDepth();
        const below = band(node.child(k).child(0), (x) => member(x, innermost), parallel.has(st) ? parallelPointMark : sequentialMark, [st]);
        node = below.ancestor(below.getTreeDepth() - depth);
      });
      return node.getSchedule();
    };

    /**
     * The tree's statements whose innermost loop is parallel and those (with every loop) whose is
     * not, or why the tree is illegal: of the tiles of `of` in time band order, which also answers
     * for the same tiles in wavefronts once `tilesNonDecreasing` holds. A dependence between two
     * tiles then moves every tile coordinate by d >= 0: to a later wavefront, or within one (the
     * d of the coordinates it sums adding up to 0) to the same values of those, where the other
     * tile coordinates and the points order it as in time band order; and (w, T1, ..) determine
     * (T0, T1, ..), so the loops around an innermost loop hold one set of instances in either order. Checking the band order instead costs heat-3d at PolyBench
     * LARGE 105,000 isl operations against 724,000 (the sum of two floors in w).
     */
    const check = (wavefront: boolean, of: readonly number[] = sizes): { parallel: ScopStatementModel[]; carrying: ScopStatementModel[] } | string => {
      // { S[..] -> [schedule] }: the tree as a map; every dependence must increase it.
      const map = tree(new Set(), wavefront, { sizes: of, fronts: false }).getMap();
      // { [src schedule] -> [dst schedule] } per dependence
      const images = deps.applyDomain(map).applyRange(map);
      if (!images.isEmpty() && !images.isSubset(lexLess(model, images))) return 'the tiled schedule would reorder a dependence';
      // Each statement's innermost loop: parallel when no dependence joins two of its instances in one iteration of the loops around it.
      const parallel = ordered.filter((st) => {
        const own = st.domain.toUnionSet();
        // { [prefix, x] -> [prefix, x'] } of the statement's own dependences
        const same = deps.intersectDomain(own).intersectRange(own).applyDomain(map).applyRange(map);
        return same.isEmpty() || same.intersect(relationPerShape(model.ctx, same, samePrefixOtherLastMap)).isEmpty();
      });
      return { parallel, carrying: ordered.filter((st) => st.loops.length === space + 1 && !parallel.includes(st)) };
    };
    let wavefront = false;
    let checked = check(false);
    if (typeof checked !== 'string' && checked.carrying.length > 0) {
      // In-place updates (seidel-2d): walk each tile by wavefronts, whose points are independent.
      const across = check(true);
      if (typeof across === 'string' || across.carrying.length > 0) {
        return { refused: `an innermost loop carries a dependence (${checked.carrying.map((st) => st.name).join(', ')}), and so does a tile's wavefront: it stays a chain of dependent operations, which tiles do not shorten` };
      }
      wavefront = true;
      checked = across;
    }
    if (typeof checked === 'string') return { refused: checked };
    // A wavefront's points are a row and two columns apart (not stride 1): opt would vectorize them
    // by gathers and scatters, slower than the scalar loop, whose independent points the CPU
    // overlaps. So its innermost loops keep the sequential mark.
    const parallelInnermost = wavefront ? [] : checked.parallel;
    const schedule = tree(new Set(parallelInnermost), wavefront);
    const text = schedule.toStr();
    // The tree one thread runs instead of the wavefronts (codegen/one-thread.ts): the tiles in time
    // band order at the cache rule's height, the tree `check` checked when the height is the same,
    // else checked on its own.
    const serialChecked = !tileWavefront || o.oneThreadOrder !== true ? undefined : serialSizes.every((w, m) => w === sizes[m]) ? checked : check(wavefront, serialSizes);
    const serialRefused = serialChecked === undefined ? undefined : typeof serialChecked === 'string' ? serialChecked
      : !wavefront && serialChecked.carrying.length > 0 ? `an innermost loop carries a dependence at the single-thread height (${serialChecked.carrying.map((st) => st.name).join(', ')})` : undefined;
    const serial = serialChecked !== undefined && typeof serialChecked !== 'string' && serialRefused === undefined
      ? tree(new Set(wavefront ? [] : serialChecked.parallel), wavefront, { sizes: serialSizes, fronts: false })
      : undefined;
    const timeTiled: TimeTiled = {
      skew, sizes, why: sizeWhy, parallelInnermost: parallelInnermost.map((st) => st.name), wavefront, ...(tileWavefront ? { tileWavefront } : {}), ...(columnDeltas ? { tileColumnDeltas: columnDeltas } : {}), ...(tileWavefrontRefusal ? { tileWavefrontRefused: tileWavefrontRefusal } : {}), ...(counted ? { wavefrontHeight: counted.why } : {}),
      ...(serial ? { oneThreadSizes: serialSizes } : {}), ...(serialRefused ? { oneThreadRefused: serialRefused } : {}),
    };
    const decision: ScheduleDecision = {
      schedule: schedule.keep(),
      ...(serial ? { oneThreadSchedule: serial.keep() } : {}),
      why: `time-tiled: the outermost loop carries the reuse; skewed by ${skew}${form === 'plain' ? '' : ' (each space member also adds the one outside it)'} and tiled ${sizes.join(' x ')}${wavefront ? ', each tile walked by wavefronts' : ''}${tileWavefront ? `, the tiles in wavefronts${frontDepth > 2 ? ` of ${frontDepth} tile coordinates` : ''}` : ''}`,
      tiled: [{ statements: ordered.map((st) => st.name), sizes, why: sizeWhy }],
      fused: ordered.length > 1,
      skewed: true,
      matmul: [],
      tree: text,
      timeTiled,
    };
    return { decision };
  });
}

/** Why `model`'s loops are not a time loop around space loops, from its loops alone (no isl); undefined when they are. */
export function notStencilShaped(model: ScopModel): string | undefined {
  const looped = model.statements.filter((st) => st.loops.length > 0);
  if (looped.length === 0) return 'no loop';
  const time = looped[0]!.loops[0]!;
  if (looped.some((st) => st.loops[0] !== time)) return 'the statements share no outermost loop';
  if (Math.max(...looped.map((st) => st.loops.length - 1)) === 0) return 'no loop inside the outermost one';
  return undefined;
}

/**
 * Why `model` is not an iterative stencil time tiling could take (the checks before any
 * dependence is looked at), or undefined when it is one.
 */
export function notAStencil(model: ScopModel): string | undefined {
  const shape = notStencilShaped(model);
  if (shape !== undefined) return shape;
  const looped = model.statements.filter((st) => st.loops.length > 0);
  const time = looped[0]!.loops[0]!;
  const space = Math.max(...looped.map((st) => st.loops.length - 1));
  // The loops first: the flow reads the exact dataflow.
  if (space === 1) return 'one space dimension: a time step touches vectors, which stay in the caches across time steps';
  if (!model.dependences.carriesFlow(time, 'array')) return 'the outermost loop carries no flow of array values: no reuse across its iterations';
  return undefined;
}

/**
 * How a space member combines the counters: `plain`, member m = s*t + x_m (jacobi-2d, heat-3d,
 * fdtd-2d); `triangular`, member m = s*t + x_(m-1) + x_m, the classical skew of in-place
 * updates (seidel-2d: [t, 2t + i, 2t + i + j]), tried when no plain skew orders the dependences.
 */
type SkewForm = 'plain' | 'triangular';
const skewForms: readonly SkewForm[] = ['plain', 'triangular'];

/**
 * Per statement, how many space members come before its first space loop: 0 when its loops are
 * the outer loops of a statement with every space loop (a row's statement around the innermost
 * loop: seidel-2d's preloads of -O3), else its loops are aligned innermost (fdtd-2d's
 * `ey[0][j]`, in a loop of its own), so a statement with fewer space loops has none in the
 * outer members.
 */
function memberOffsets(statements: readonly ScopStatementModel[], space: number): Map<ScopStatementModel, number> {
  const deepest = statements.filter((st) => st.loops.length === space + 1);
  return new Map(statements.map((st) => {
    const prefix = deepest.some((d) => st.loops.every((l, k) => d.loops[k] === l));
    return [st, prefix ? 0 : space - (st.loops.length - 1)] as const;
  }));
}

/** The counters (indices into the statement's loops) summed in space member m (1..space) of a statement with `offset` (memberOffsets). */
function memberCounters(st: ScopStatementModel, m: number, offset: number, form: SkewForm): number[] {
  const at = (x: number): number[] => (x - offset >= 1 && x - offset <= st.loops.length - 1 ? [x - offset] : []);
  return form === 'triangular' && m > 1 ? [...at(m - 1), ...at(m)] : at(m);
}

/** The statements in the order they run within one iteration of the outermost loop (their 2D+1 schedules' constants). */
function inOriginalOrder(statements: readonly ScopStatementModel[]): ScopStatementModel[] {
  const key = (st: ScopStatementModel): number[] => {
    // { [t0, ..] }: the statement's schedule values; the even dimensions are constants
    const range = st.schedule.range();
    const n = range.dim(DimType.set);
    const out: number[] = [];
    for (let d = 0; d < n; d += 2) out.push(range.dimMaxVal(d).getNumSi());
    return out;
  };
  const keys = new Map(statements.map((st) => [st, key(st)] as const));
  return [...statements].sort((a, b) => {
    const x = keys.get(a)!;
    const y = keys.get(b)!;
    for (let k = 0; k < Math.min(x.length, y.length); k++) if (x[k] !== y[k]) return x[k]! - y[k]!;
    return x.length - y.length;
  });
}

/**
 * Per statement, the shift of each space member (difference constraints, see the head of this
 * file) for skew `s`, or undefined when none exists.
 */
function solveShifts(model: ScopModel, statements: readonly ScopStatementModel[], deps: UnionMap, space: number, s: number, form: SkewForm): Map<ScopStatementModel, number[]> | undefined {
  const ctx = model.ctx;
  const offsets = memberOffsets(statements, space);
  const byName = new Map(statements.map((st) => [st.name, st] as const));
  /** Edges per member: c_to - c_from >= weight. */
  const edges: { from: ScopStatementModel; to: ScopStatementModel; weight: number }[][] = Array.from({ length: space }, () => []);
  for (const pair of deps.getMapList().toArray()) {
    const from = byName.get(pair.getTupleName(DimType.in) ?? '');
    const to = byName.get(pair.getTupleName(DimType.out) ?? '');
    if (!from || !to) continue;
    for (let m = 1; m <= space; m++) {
      // { S[a] -> [s*a0 + x_S] } and { T[b] -> [s*b0 + x_T] }: the member without its shift
      const value = (st: ScopStatementModel): IslMap =>
        MultiAff.fromAff(memberCounters(st, m, offsets.get(st)!, form).reduce((a, k) => a.add(counterAff(st.domain, k)), counterAff(st.domain, 0).scaleVal(ctx.val(s)))).asMap();
      // [params] -> { [v] }: the member's distances over the dependence, s (b0 - a0) + x_T - x_S
      const distances = pair.applyDomain(value(from)).applyRange(value(to)).deltas();
      if (distances.isEmpty()) continue;
      // The largest d in [minDistance, maxDistance] with every distance >= d.
      const lowest = distances.dimMinVal(0);
      const least = lowest.isInfty() ? maxDistance : lowest.isInt() ? Math.min(maxDistance, lowest.getNumSi()) : undefined;
      if (least === undefined || least < minDistance) return undefined;
      edges[m - 1]!.push({ from, to, weight: -least });
    }
  }
  const shifts = new Map(statements.map((st) => [st, Array.from({ length: space }, () => 0)] as const));
  for (let m = 0; m < space; m++) {
    // Longest paths from 0 (Bellman-Ford): the least non-negative shifts; still relaxing after |V| rounds: a positive cycle.
    let changed = true;
    for (let round = 0; round <= statements.length && changed; round++) {
      changed = false;
      for (const e of edges[m]!) {
        const need = shifts.get(e.from)![m]! + e.weight;
        if (shifts.get(e.to)![m]! < need) {
          shifts.get(e.to)![m] = need;
          changed = true;
        }
      }
      if (changed && round === statements.length) return undefined;
    }
  }
  return shifts;
}

/** { [a] -> [b] : a lexicographically before b } for every pair of dimensions in `pairs`. */
export function lexLess(model: ScopModel, pairs: UnionMap): UnionMap {
  return relationPerShape(model.ctx, pairs, (space) => lexLessMap(space));
}

/** What sizes a stencil's tiles: the machine and the SCoP. */
export interface TimeTileSizeInput {
  readonly caches: CacheSizes;
  readonly vectorBytes: number;
  /** Bytes of the widest array element the statements touch. */
  readonly elementBytes: number;
  /** Arrays the statements touch. */
  readonly arrays: number;
  /** Space members (the band has one more: time). */
  readonly space: number;
  readonly skew: number;
}

/**
 * Time tile height T and space widths W1..WD. The innermost loop runs long row segments:
 * WD = lanes * 2^(8 - D) (64 vectors with two space dimensions, 32 with three), a multiple of
 * the SIMD lanes. The outer widths are 2T, and T is the tallest of 32, 16, 8, 4, 2 whose tile's
 * data, every array over the box a parallelogram covers (W + skew*T along each outer member, WD
 * along the innermost), fits in twice L2: the T sweeps of a tile then read it from L2 (and what
 * spills, from L3) instead of memory. Measured on PolyBench LARGE (README): jacobi-2d and
 * fdtd-2d fastest with 32 x 64 x 512, heat-3d with 4-8 x 8-16 x 8-16 x 256; shorter innermost
 * segments (136 for fdtd-2d, 48 for heat-3d) lost most of the gain.
 */
export function timeTileSizes(input: TimeTileSizeInput): { sizes: number[]; why: string } {
  const { caches, vectorBytes, space, skew } = input;
  const elem = Math.max(1, input.elementBytes);
  const arrays = Math.max(1, input.arrays);
  const lanes = Math.max(1, Math.floor(vectorBytes / elem));
  const inner = lanes * 2 ** Math.max(0, 8 - space);
  const budget = 2 * caches.l2;
  const footprint = (T: number): number => arrays * elem * (2 * T + skew * T) ** (space - 1) * inner;
  const T = [32, 16, 8, 4, 2].find((h) => footprint(h) <= budget) ?? 2;
  const sizes = [T, ...Array.from({ length: space - 1 }, () => 2 * T), inner];
  const why =
    `${arrays} array(s) of ${elem}-byte elements, skew ${skew}: height ${T}, widths ${sizes.slice(1).join(' x ')} ` +
    `(innermost ${inner / lanes} vectors of ${lanes}; ${arrays}x${Array.from({ length: space - 1 }, () => `${2 * T + skew * T}`).join('x')}x${inner}x${elem} B <= 2 x L2 ${caches.l2 >> 10} KiB)`;
  return { sizes, why };
}

/** `st` as transform/wavefront-shape.ts counts it: its domain's box and the band's `time` and `space` members. */
function countedStatement(st: ScopStatementModel, time: Aff, space: Aff): CountedStatement {
  const box = Array.from({ length: st.domain.tupleDim() }, (_, k): [number, number] => [st.domain.dimMinVal(k).getNumSi(), st.domain.dimMaxVal(k).getNumSi()]);
  const linear = (f: Aff): Linear => ({
    coefficients: box.map((_, k) => f.getCoefficientVal(DimType.in, k).getNumSi()),
    constant: f.getConstantVal().getNumSi(),
  });
  return { box, time: linear(time), space: linear(space) };
}

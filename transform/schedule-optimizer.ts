// The schedule optimizer: a new schedule tree per SCoP from isl's scheduler, its permutable
// bands reordered so the innermost loop walks rows, and tiled (transform/tile-sizes.ts).
//
//   RAW/WAR/WAW       ──► isl_schedule_constraints_compute_schedule ──► bands: members permuted,
//     (validity, proximity,          (min fusion, band depth maximized)      tiled, one mark per
//      coincidence)                                                          member: parallel or not
//
// Constraints: isl's dataflow on the model (polyhedral/dependences.ts), RAW, WAR and WAW of
// arrays and of scalars, which the fast path keeps in one stack slot each. Every pair of
// instances touching one location, one writing it, is ordered through a chain of these, so any
// schedule isl finds keeps each location's accesses, reductions included, in their order:
// results bit for bit those of the original order. (Every such pair itself, not only the
// nearest, made the scheduler run out of its quota on lu and jacobi-2d.) Permuting the members
// of a permutable band and tiling it keep every pair's order too.
//
// A member isl marks coincident has distance zero on every pair its outer bands do not order:
// its loops carry nothing (also inside a tile). Each loop gets one of four marks, read by
// versioning (vectorizedMarks: access groups; threadableMarks: OpenMP):
//   tsopt_parallel        carries nothing, in no tile: vectorized, and may run on threads
//   tsopt_parallel_tile   a tile loop that carries nothing: may run on threads, not vectorized
//   tsopt_parallel_point  a point loop of a tile that carries nothing: vectorized, never on
//                         threads (a team forked there would fork once per tile)
//   tsopt_sequential      may carry a dependence
// The generic tiling below, the matmul path (transform/matmul.ts) and time tiling
// (transform/time-tiling.ts) all mark their loops this way.
//
// The cost model keeps the base schedule when isl's is not better: when some statement's
// innermost loop would walk more accesses across rows than in the base order, when a statement
// whose innermost loop carried nothing would get one that may, when isl skewed a band (stencils
// are time-tiled before isl's scheduler runs: transform/time-tiling.ts), and when the new schedule tiles nothing and walks no fewer rows.
import { AstLoopType, type AstNodeTree, DimType, IslError, IslQuotaError, MultiUnionPwAff, Schedule, ScheduleConstraints, ScheduleNodeType, type ScheduleNode, Set as IslSet, Space, UnionMap, type UnionSet, UnionSetList } from 'isl-wasm';
import { stepAlong, stride } from './interchange';
import type { ScopModel, ScopStatementModel } from '../polyhedral/model';
import { columnWalkTileSizes } from './column-walk-tiles';
import { innermostRunning } from './running-loops';
import { tileSizes, type CacheSizes } from './tile-sizes';
import { parametricRefusal } from './matmul-rows';
import { aLikeReads, distributeMatmul, insertMatmulBands, matmulRefused, matmulRoles, matmulSizes, packedOperands, type MatmulInfo, type MatmulRoles } from './matmul';
import type { Plan } from './schedule-plan';
import type { TimeTiled } from './time-tiling';
import type { RowJammed } from './row-jam';

export interface ScheduleOptions {
  /** --tile: tile permutable bands of two members or more. */
  readonly tile: boolean;
  /** --tile-sizes: one size for every member (the last one for members past the list), instead of the model's. */
  readonly tileSizes: readonly number[] | undefined;
  readonly caches: CacheSizes;
  /** Bytes of the target's widest vector register. */
  readonly vectorBytes: number;
  /** --register-tile: unroll and jam the members of a tiled band with reuse in registers. */
  readonly registerTile: boolean;
  /** --matmul: matrix-multiplication statements get BLIS's loops (transform/matmul.ts) instead of the generic tiling. */
  readonly matmul: boolean;
  /** --matmul-pack: the matmul path packs operands read across rows along j (transform/matmul.ts). */
  readonly pack: boolean;
  /** --matmul-pack-a: with packing, also A-like operands read across rows along i (transform/matmul.ts, packedOperands). */
  readonly packA: boolean;
  /** --matmul-parametric: the matmul path also for parametric sizes (transform/matmul.ts, matmulRefused), where C's rows are apart and nothing needs packing (transform/matmul-rows.ts). */
  readonly matmulParametric: boolean;
  /** --matmul-parametric-pack: at parametric sizes, also where an operand needs packing (buffers sized at run time). */
  readonly matmulParametricPack: boolean;
  /** --parallel: the matmul path's blocks are sized for threads sharing the L3 (transform/matmul.ts, matmulSizes); a right-looking step's statements share their rows (transform/right-looking.ts). */
  readonly threads?: boolean;
}

/** One tiled band: its members' sizes and why. */
export interface TiledBand {
  readonly statements: readonly string[];
  readonly sizes: readonly number[];
  readonly why: string;
  /** Per member, how many of its iterations run unrolled and jammed inside the innermost loop (register tiling), when any. */
  readonly jammed?: readonly number[];
}

/** What the optimizer decided for one SCoP. */
export interface ScheduleDecision {
  /** The new schedule tree, kept in the model's context (the caller disposes it); undefined: the base schedule stays. */
  readonly schedule: Schedule | undefined;
  /**
   * With time tiles in wavefronts for threads: the tree one thread runs instead (the tiles in
   * time band order, transform/time-tiling.ts), kept and disposed as `schedule`.
   */
  readonly oneThreadSchedule?: Schedule;
  /** Why the new schedule was taken, or why the base one was kept. */
  readonly why: string;
  readonly tiled: readonly TiledBand[];
  /** Some band of isl's schedule runs two statements or more together. */
  readonly fused: boolean;
  /** Some band of isl's schedule is not a permutation of the statements' loops. */
  readonly skewed: boolean;
  /** isl's tree (after permutation and tiling) as isl prints it, taken or not. */
  readonly tree: string;
  /** The statements given BLIS's loops (transform/matmul.ts). */
  readonly matmul: readonly MatmulInfo[];
  /** The stencil's time tiling (transform/time-tiling.ts), when the tree is one. */
  readonly timeTiled?: TimeTiled;
  /** Why time tiling did not apply, when it was tried. */
  readonly timeTileRefused?: string;
  /** Why isl's scheduler was not run, when a filter said it could not help (transform/schedule-filter.ts). */
  readonly schedulerSkipped?: string;
  /** The rows of a chain run jammed (transform/row-jam.ts), when the tree is that. */
  readonly rowJammed?: RowJammed;
  /** Why the row jam did not apply to a nest of its shape, when it was tried. */
  readonly rowJamRefused?: string;
  /** The reduction loop runs outermost (transform/right-looking.ts), when the tree is that: how each statement is placed. */
  readonly rightLooking?: string;
  /** Why the right-looking order did not apply, when it was tried. */
  readonly rightLookingRefused?: string;
}

export const parallelMark = 'tsopt_parallel';
export const sequentialMark = 'tsopt_sequential';
export const parallelTileMark = 'tsopt_parallel_tile';
export const parallelPointMark = 'tsopt_parallel_point';
/** Marks of loops whose iterations opt may run as SIMD lanes (they get access groups). */
export const vectorizedMarks: readonly string[] = [parallelMark, parallelPointMark];
/** Marks of loops whose iterations may run on OpenMP's threads. */
export const threadableMarks: readonly string[] = [parallelMark, parallelTileMark];


/** How a statement's instance moves along a band member: along one of its loops (its dimension), not at all, or mixed (skewed). */
type Along = number | 'none' | 'mixed';

/** One band member as one statement sees it. */
interface Step {
  readonly st: ScopStatementModel;
  readonly along: Along;
  readonly coincident: boolean;
}

class NotScheduled extends Error {}

/**
 * A new schedule for `model` (see the head of this file), or the reason `base` stays.
 * `baseInnermost(st)` is the dimension of `st` that runs innermost in the original (or interchanged) order.
 * Runs in a scope of its own; isl errors (the quota) pass through.
 */
export function optimizeSchedule(model: ScopModel, baseInnermost: (st: ScopStatementModel) => number, o: ScheduleOptions): ScheduleDecision {
  const ctx = model.ctx;
  return ctx.scope(() => {
    const domains = model.domains;
    // [params] -> { S[..] -> T[..] }: RAW, WAR, WAW of arrays and scalars
    const ordered = orderedDependences(model);
    // Proximity and coincidence stay `ordered`: there the pairs `validity` adds would change the objective.
    const constraints = ScheduleConstraints.onDomain(domains).setContext(model.assumedContext).setValidity(schedulerValidity(model, ordered)).setProximity(ordered).setCoincidence(ordered);
    const saved = ctx.getOptions();
    let computed: Schedule;
    try {
      // Polly's defaults: minimal fusion (each strongly connected component on its own), deepest bands.
      ctx.setOptions({ scheduleSerializeSccs: true, scheduleMaximizeBandDepth: true, scheduleOuterCoincidence: false, scheduleMaxCoefficient: 1, scheduleMaxConstantTerm: 20 });
      computed = constraints.computeSchedule();
    } finally {
      ctx.setOptions({
        scheduleSerializeSccs: saved.scheduleSerializeSccs, scheduleMaximizeBandDepth: saved.scheduleMaximizeBandDepth, scheduleOuterCoincidence: saved.scheduleOuterCoincidence,
        scheduleMaxCoefficient: saved.scheduleMaxCoefficient, scheduleMaxConstantTerm: saved.scheduleMaxConstantTerm,
      });
    }
    let plan: Plan;
    try {
      plan = readPlan(computed.getRoot().child(0));
    } catch (e) {
      if (e instanceof NotScheduled) return { schedule: undefined, why: e.message, tiled: [], fused: false, skewed: false, tree: computed.toStr(), matmul: [] };
      throw e;
    }
    if (o.matmul && matmulRefused(model, o.matmulParametric) === undefined) plan = distributeMatmul(model, plan, ordered, (st) => parametricRefusal(model, st, needsPacking(model, st), o.matmulParametricPack) === undefined);
    return decideOnPlan(model, plan, computed.toStr(), baseInnermost, o);
  });
}

/**
 * The optimizer's decision on a schedule tree `plan` (isl's scheduler's, or one built from the
 * model: transform/right-looking.ts): its permutable bands permuted, the cost model against the
 * base order, then the tree built, tiled and marked. `text` is the tree as printed when kept.
 * `deepestOnly`: the cost model compares the statements of the most loops only, the work of the
 * nest (the right-looking order walks lu's divisions, N² of N³, down a column as Polly's does).
 * isl objects of the caller's scope; the schedule returned is kept (the caller disposes it).
 */
export function decideOnPlan(model: ScopModel, plan: Plan, text: string, baseInnermost: (st: ScopStatementModel) => number, o: ScheduleOptions, deepestOnly = false): ScheduleDecision {
  const domains = model.domains;
  let skewed = false;
  let fused = false;
  const tiled: TiledBand[] = [];
  /** The member each statement runs innermost along, and whether it is coincident. */
  const innermost = new Map<ScopStatementModel, Step>();
  const visit = (p: Plan, here: readonly ScopStatementModel[], outer: readonly Step[]): void => {
    if (p.kind === 'leaf') {
      for (const st of here) {
        const path = outer.filter((x) => x.st === st && x.along !== 'none');
        if (path.length > 0) innermost.set(st, path[path.length - 1]!);
      }
      return;
    }
    if (p.kind !== 'band') {
      for (const c of p.children) visit(c.child, here.filter((st) => !c.filter.intersect(st.domain.toUnionSet()).isEmpty()), outer);
      return;
    }
    const statements = here.filter((s) => !p.mupa.domain().intersect(s.domain.toUnionSet()).isEmpty());
    if (statements.length > 1) fused = true;
    const along = new Map(statements.map((st) => [st, memberMoves(model, st, p.mupa)] as const));
    if (statements.some((st) => along.get(st)!.includes('mixed'))) skewed = true;
    if (p.permutable && p.mupa.size() >= 2) permute(model, p, statements, along);
    const steps = Array.from({ length: p.mupa.size() }, (_, m) => statements.map((st) => ({ st, along: along.get(st)![m]!, coincident: p.coincident[m]! }))).flat();
    visit(p.child, here, [...outer, ...steps]);
  };
  visit(plan, model.statements, []);

  // The cost model: strides of each statement's innermost loop, new against base.
  const parallelBase = new Set(model.dependences.parallelLoops);
  let newAcross = 0;
  let baseAcross = 0;
  const deepest = Math.max(...model.statements.map((st) => st.loops.length));
  for (const st of model.statements) {
    if (st.loops.length === 0 || (deepestOnly && st.loops.length < deepest)) continue;
    // The loop that repeats the statement innermost, past dimensions -O3's peeling fixed (transform/running-loops.ts).
    const b = innermostRunning(model, st, baseInnermost(st));
    const was = acrossRows(model, st, b);
    const now = innermost.get(st);
    const is = now === undefined ? 0 : acrossRows(model, st, now.along);
    newAcross += is;
    baseAcross += was;
    if (is > was) return kept(`the original order is kept: ${st.name}'s innermost loop would walk ${is} access(es) across rows instead of ${was}`, text);
    // Only a loop with no SCoP loop inside is one opt would vectorize (a statement before or
    // after an inner loop, such as a split sum's start and use, runs in one that is not).
    if (b !== 'none' && parallelBase.has(st.loops[b]!) && !model.loops.some((l) => l.parent === st.loops[b]) && now !== undefined && !now.coincident) {
      return kept(`the original order is kept: ${st.name}'s innermost loop carries no dependence there, and may in isl's schedule`, text);
    }
  }
  if (skewed) return kept('the original order is kept: isl skewed a band (no time tiling yet)', text);

  const matmul: MatmulInfo[] = [];
  const schedule = build(model, plan, domains, o, tiled, matmul, o.threads ? threadDependences(model) : undefined);
  const tree = schedule.toStr();
  if (tiled.length === 0 && newAcross >= baseAcross) {
    return kept(o.tile ? "the original order is kept: isl's schedule has no band to tile and walks no fewer rows" : "the original order is kept: isl's schedule walks no fewer rows (tiling off)", tree);
  }
  const what = tiled.length > 0 ? `${tiled.length} band(s) tiled` : `${baseAcross - newAcross} fewer access(es) walking rows innermost`;
  return { schedule: schedule.keep(), why: `isl's schedule taken: ${what}`, tiled, fused, skewed, tree, matmul };

  function kept(why: string, tree: string): ScheduleDecision {
    return { schedule: undefined, why, tiled: [], fused, skewed, tree, matmul: [] };
  }
}

/** Runs `optimizeSchedule`, turning isl giving up (quota, error) into a decision that keeps the base schedule. */
export function optimizeOrKeep(model: ScopModel, run: () => ScheduleDecision): ScheduleDecision {
  try {
    return run();
  } catch (e) {
    if (e instanceof IslQuotaError || (e instanceof IslError && model.budget.exhaustedBy)) {
      return { schedule: undefined, why: `the original order is kept: isl ran out of its quota for the schedule (${e.message})`, tiled: [], fused: false, skewed: false, tree: '', matmul: [] };
    }
    if (e instanceof IslError) return { schedule: undefined, why: `the original order is kept: isl failed on the schedule (${e.message})`, tiled: [], fused: false, skewed: false, tree: '', matmul: [] };
    throw e;
  }
}

/**
 * [params] -> { S[..] -> T[..] }: isl's dataflow, RAW, WAR and WAW of arrays and scalars, in the
 * model's order, where the model is exact. Every pair of instances touching one location, one
 * writing it, is ordered through a chain of these (a write, the writes after it, the reads of
 * each), so a schedule that respects them keeps every such pair's order; a legal interchange
 * keeps every such pair's order too, so they are also the interchanged order's.
 */
export function orderedDependences(model: ScopModel): UnionMap {
  const d = model.dependences;
  let all = d.raw.array.union(d.raw.scalar);
  for (const pair of [d.war, d.waw]) all = all.union(pair.array).union(pair.scalar);
  return onDomains(model, all);
}

/** `deps` between instances of the model's domains under its assumed context, coalesced. */
export function onDomains(model: ScopModel, deps: UnionMap): UnionMap {
  return deps.intersectDomain(model.domains).intersectRange(model.domains).intersectParams(model.assumedContext).coalesce();
}

/**
 * [params] -> { S[..] -> T[..] }: what a loop on threads must not carry: RAW, WAR and WAW of
 * arrays and the scalars' flow. A scalar's write-after-read and write-after-write vanish once
 * each thread has its own slot (codegen/parallel-loop.ts gives every slot the loop writes one
 * per thread, and keeps serial a loop whose written slot is also used outside it), as for the
 * model's `parallelLoops` (polyhedral/dependences.ts). isl's coincidence is computed on the
 * ordered dependences, scalars' WAR and WAW included: a sum kept in one scalar per (i, j)
 * (PolyBench symm's `temp2`) made j not coincident although it carries nothing.
 */
export function threadDependences(model: ScopModel): UnionMap {
  const d = model.dependences;
  return onDomains(model, d.raw.array.union(d.raw.scalar).union(d.war.array).union(d.waw.array));
}

/**
 * Per member of the band at `node`, whether its loop may run on threads: isl's coincidence, or
 * (with `deps`, threadDependences) distance zero on every pair of `deps` whose two instances
 * reach the node with one value of the outer bands (the band's own members are not compared:
 * the member stays parallel wherever the band's members are permuted or tiled).
 */
function threadCoincident(node: ScheduleNode, coincident: readonly boolean[], deps: UnionMap | undefined): boolean[] {
  if (deps === undefined || coincident.every((c) => c)) return [...coincident];
  // { S[..] -> [outer bands] } over the instances that reach the node
  const prefix = node.getPrefixScheduleUnionMap();
  // { S[..] -> T[..] }: the pairs under the node that the outer bands leave in one iteration
  const here = deps.intersect(prefix.applyRange(prefix.reverse()));
  const band = node.bandGetPartialSchedule();
  return coincident.map((c, m) => c || here.isSubset(here.eqAtMultiUnionPwAff(MultiUnionPwAff.fromUnionPwAff(band.getAt(m)))));
}

/**
 * [params] -> { S[..] -> T[..] }: `ordered` (orderedDependences) without what the statements'
 * domains and the context imply of its sources, for isl's scheduler as validity constraints. A
 * superset of `ordered`, equal to it on the domains and the context, so a schedule that respects
 * it respects `ordered`; with far fewer constraints for the scheduler's Farkas multipliers (the
 * same trees on the 30 PolyBench kernels but lu's second nest, which now fits the quota: ludcmp's
 * DeLICM nest 706K -> 108K operations, gramschmidt's 742K -> 130K, doitgen's 453K -> 53K).
 */
export function schedulerValidity(model: ScopModel, ordered: UnionMap): UnionMap {
  return ordered.gistDomain(model.domains).gistParams(model.assumedContext).coalesce();
}

/** The schedule tree below a domain node as plain data; NotScheduled for nodes isl's scheduler does not make. */
function readPlan(node: ScheduleNode): Plan {
  switch (node.getType()) {
    case ScheduleNodeType.leaf:
      return { kind: 'leaf' };
    case ScheduleNodeType.band: {
      const n = node.bandNMember();
      return { kind: 'band', mupa: node.bandGetPartialSchedule(), permutable: node.bandGetPermutable(), coincident: Array.from({ length: n }, (_, k) => node.bandMemberGetCoincident(k)), child: readPlan(node.child(0)) };
    }
    case ScheduleNodeType.sequence:
    case ScheduleNodeType.set: {
      const children = Array.from({ length: node.nChildren() }, (_, k) => {
        const filter = node.child(k);
        return { filter: filter.filterGetFilter(), child: readPlan(filter.child(0)) };
      });
      return { kind: node.getType() === ScheduleNodeType.sequence ? 'sequence' : 'set', children };
    }
    default:
      throw new NotScheduled(`the original order is kept: isl's schedule has a node of type ${ScheduleNodeType[node.getType()]}`);
  }
}

/**
 * Per member of `mupa`, how `st` moves along it: the dimension whose step moves the member by
 * one and no other dimension moves it, 'none', or 'mixed' (a skew, or a step other than one).
 */
function memberMoves(model: ScopModel, st: ScopStatementModel, mupa: MultiUnionPwAff): Along[] {
  const n = mupa.size();
  const counters = st.loops.map((_, k) => `i${k}`);
  // [params] -> { S[i..] -> [b0, ..] } over the statement's instances
  const band = UnionMap.fromMultiUnionPwAff(mupa).intersectDomain(st.domain.toUnionSet());
  // [params] -> { [x0, ..] : x_m = v }: a move of member m by exactly v
  const by = (m: number, v: number): UnionSet => IslSet.universe(mupa.getSpace()).fixSi(DimType.set, m, v).toUnionSet();
  // coefficient[m][d]: how member m moves when dimension d steps by one: 0, 1, or undefined (other)
  const coefficient: (0 | 1 | undefined)[][] = Array.from({ length: n }, () => []);
  counters.forEach((_, d) => {
    const step = stepAlong(model, st, d).toUnionMap();
    // [params] -> { [b' - b] }: how the band moves from one instance to the next along d
    const moves = band.reverse().applyRange(step).applyRange(band).deltas();
    for (let m = 0; m < n; m++) {
      if (moves.isEmpty()) coefficient[m]![d] = 0;
      else if (moves.isSubset(by(m, 0))) coefficient[m]![d] = 0;
      else if (moves.isSubset(by(m, 1))) coefficient[m]![d] = 1;
      else coefficient[m]![d] = undefined;
    }
  });
  return coefficient.map((row): Along => {
    if (row.some((c) => c === undefined)) return 'mixed';
    const moving = row.flatMap((c, d) => (c === 1 ? [d] : []));
    if (moving.length === 0) return 'none';
    return moving.length === 1 ? moving[0]! : 'mixed';
  });
}

/** Accesses of `st` that move by more than one element (or by a varying amount) per step along `along`. */
export function acrossRows(model: ScopModel, st: ScopStatementModel, along: Along): number {
  if (along === 'none') return 0;
  const accesses = st.accesses.filter((a) => a.array.kind === 'array');
  if (along === 'mixed') return accesses.length;
  return accesses.filter((a) => stride(model, st, a, along) === 'other').length;
}

/**
 * Moves innermost a coincident member of a permutable band (opt vectorizes only loops that carry
 * nothing: no reassociation of a reduction), of those the one along which the fewest accesses
 * walk across rows, then the one with more stride-1 accesses, keeping the others' order.
 * Any order of a permutable band's members respects the dependences it was computed for.
 */
function permute(model: ScopModel, p: Extract<Plan, { kind: 'band' }>, statements: readonly ScopStatementModel[], along: Map<ScopStatementModel, Along[]>): void {
  const n = p.mupa.size();
  const score = (m: number): [number, number, number] => {
    let across = 0;
    let unit = 0;
    for (const st of statements) {
      const a = along.get(st)![m]!;
      across += acrossRows(model, st, a);
      if (typeof a === 'number') unit += st.accesses.filter((x) => x.array.kind === 'array' && stride(model, st, x, a) === 'unit').length;
    }
    return [p.coincident[m] ? 0 : 1, across, -unit];
  };
  const scores = Array.from({ length: n }, (_, m) => score(m));
  let best = n - 1;
  for (let m = n - 1; m >= 0; m--) {
    const [a, c, u] = scores[m]!;
    const [ba, bc, bu] = scores[best]!;
    if (a < ba || (a === ba && (c < bc || (c === bc && u < bu)))) best = m;
  }
  if (best === n - 1) return;
  const order = [...Array.from({ length: n }, (_, m) => m).filter((m) => m !== best), best];
  let mupa = p.mupa;
  order.forEach((from, to) => {
    mupa = mupa.setAt(to, p.mupa.getAt(from));
  });
  p.mupa = mupa;
  p.coincident = order.map((m) => p.coincident[m]!);
  for (const st of statements) {
    const row = along.get(st)!;
    along.set(st, order.map((m) => row[m]!));
  }
}

/** The tree of `plan` on `domains`, its permutable bands of two members or more tiled, a mark above every member. */
function build(model: ScopModel, plan: Plan, domains: UnionSet, o: ScheduleOptions, tiled: TiledBand[], matmul: MatmulInfo[], threadDeps: UnionMap | undefined): Schedule {
  const ctx = model.ctx;
  const mark = (node: ScheduleNode, name: string): ScheduleNode => node.insertMark(ctx.id(name)).child(0);
  /** Splits the band at `node` into one band per member, each under its mark; returns the node below the last. */
  const splitMarked = (start: ScheduleNode, marks: readonly string[]): ScheduleNode => {
    let node = start;
    for (let k = 0; k < marks.length; k++) {
      if (k < marks.length - 1) node = node.bandSplit(1);
      node = mark(node, marks[k]!).child(0);
    }
    return node;
  };
  const byCoincidence = (coincident: readonly boolean[], parallel: string): string[] => coincident.map((c) => (c ? parallel : sequentialMark));
  const grow = (at: ScheduleNode, p: Plan): ScheduleNode => {
    if (p.kind === 'leaf') return at;
    if (p.kind === 'band') {
      const mm = o.matmul && p.permutable ? matmulBand(model, p.mupa, o, matmul.reduce((n, m) => n + m.packing.length, 0)) : undefined;
      if (mm) {
        const markOf = (m: number, level: 'tile' | 'point'): string =>
          (p.coincident[m] ? (level === 'tile' ? parallelTileMark : parallelPointMark) : sequentialMark);
        matmul.push(mm.info);
        tiled.push({ statements: [mm.info.statement], sizes: [mm.info.sizes.nc, mm.info.sizes.kc, mm.info.sizes.mc], why: `matrix multiplication: ${mm.info.sizes.why}` });
        return grow(insertMatmulBands(model, at, p.mupa, mm.along, mm.info.roles, mm.info.sizes, markOf, splitMarked, mm.info.packing), p.child);
      }
      let node = at.insertPartialSchedule(p.mupa).bandSetPermutable(p.permutable ? 1 : 0);
      p.coincident.forEach((c, k) => {
        node = node.bandMemberSetCoincident(k, c ? 1 : 0);
      });
      // The marks: isl's coincidence, and with --parallel also members that carry only scalars' WAR and WAW.
      const parallel = threadCoincident(node, p.coincident, threadDeps);
      const n = p.mupa.size();
      const statements = model.statements.filter((s) => !p.mupa.domain().intersect(s.domain.toUnionSet()).isEmpty());
      if (p.blocks !== undefined && n === 1) {
        tiled.push({ statements: statements.map((s) => s.name), sizes: [p.blocks], why: `blocks of ${p.blocks} for the threads to claim` });
        node = node.bandTile(ctx.multiVal(node.bandGetSpace(), [p.blocks]));
        node = splitMarked(node, byCoincidence(parallel, parallelTileMark));
        return grow(splitMarked(node, byCoincidence(parallel, parallelPointMark)), p.child);
      }
      if (o.tile && p.permutable && n >= 2 && reused(model, statements, p.mupa)) {
        const sizes = bandTileSizes(model, statements, n, o, p.mupa);
        tiled.push({ statements: statements.map((s) => s.name), ...sizes });
        node = node.bandTile(ctx.multiVal(node.bandGetSpace(), sizes.sizes));
        // Tile loops: a coincident member's tile loop is parallel too, but only the point loops are vectorized.
        node = splitMarked(node, byCoincidence(parallel, parallelTileMark));
        const jam = o.registerTile ? jammed(model, statements, p.mupa) : [];
        if (jam.some((j) => j)) {
          // Register tiling: the jammed members strip-mined by `jamFactor` again; the strips of
          // the iterations where all their copies run (isolated) are unrolled inside the innermost loop.
          const factors = jam.map((j) => (j ? jamFactor : 1));
          node = node.bandTile(ctx.multiVal(node.bandGetSpace(), factors));
          node = splitMarked(node, byCoincidence(parallel, parallelPointMark));
          node = node.bandSetAstBuildOptions(isolateFullStrips(model, node, factors));
          tiled[tiled.length - 1] = { ...tiled[tiled.length - 1]!, jammed: factors };
          return grow(node.child(0), p.child);
        }
        node = splitMarked(node, byCoincidence(parallel, parallelPointMark));
        return grow(node, p.child);
      }
      node = splitMarked(node, byCoincidence(parallel, parallelMark));
      return grow(node, p.child);
    }
    // A sequence or set: each child below its filter, then back up to the sequence's parent.
    const [first, ...rest] = p.children.map((c) => c.filter);
    const list = rest.reduce((l, f) => l.add(f), UnionSetList.fromUnionSet(first!));
    let node = p.kind === 'sequence' ? at.insertSequence(list) : at.insertSet(list);
    p.children.forEach((c, k) => {
      const depth = node.getTreeDepth();
      const below = grow(node.child(k).child(0), c.child);
      node = below.ancestor(below.getTreeDepth() - depth);
    });
    return node;
  };
  const root = Schedule.fromDomain(domains).getRoot().child(0);
  return grow(root, plan).root().getSchedule();
}

/**
 * Some access of the band's statements to a matrix (it moves along two loops or more) touches
 * one element for every value of a band member (it does not move along it): a tile reuses it
 * from the cache. Without such an access tiling only cuts the rows the hardware prefetcher
 * streams (an initialization, a copy), and a vector reused along a loop stays in the cache
 * anyway (atax's x[j] along i: tiled, 1.45x slower).
 */
function reused(model: ScopModel, statements: readonly ScopStatementModel[], mupa: MultiUnionPwAff): boolean {
  return statements.some((st) => {
    const along = memberMoves(model, st, mupa);
    return along.some((a) => typeof a === 'number' && st.accesses.some((acc) => acc.array.kind === 'array' && stride(model, st, acc, a) === 'invariant' && walksMatrix(model, st, acc)));
  });
}

/** The access moves along two loops of its statement or more: a matrix, also when -O3 flattened it (`A[1200 i + j]` with constant sizes). */
export function walksMatrix(model: ScopModel, st: ScopStatementModel, acc: ScopStatementModel['accesses'][number]): boolean {
  return acc.array.shape.length >= 2 || st.loops.filter((_, d) => !['invariant', 'none'].includes(stride(model, st, acc, d))).length >= 2;
}

/**
 * The AST options of a register strip band (`strip`, members of `factors` iterations): its
 * iterations whose prefix runs every copy of the strip are isolated and unrolled, so the copies
 * need no guard (a guard per copy inside the innermost loop leaves opt nothing to vectorize);
 * the others run as loops.
 */
function isolateFullStrips(model: ScopModel, strip: ScheduleNode, factors: readonly number[]): UnionSet {
  const ctx = model.ctx;
  // { S[..] -> [prefix] }: the loops around the strip, over the statements' instances
  const prefix = strip.getPrefixScheduleUnionMap().intersectDomain(model.domains);
  // { S[..] -> [o0, ..] }: each instance's place in its strip
  const place = strip.bandGetPartialScheduleUnionMap();
  // [params] -> { [prefix] : the strip at prefix runs every combination of offsets }
  let full: UnionSet | undefined;
  const offsets = (k: number, chosen: number[]): void => {
    if (k === factors.length) {
      // { [o0, ..] } fixed at `chosen`
      const at = chosen.reduce((set, o, j) => set.fixSi(DimType.set, j, o), IslSet.universe(strip.bandGetSpace())).toUnionSet();
      const prefixes = prefix.intersectDomain(place.intersectRange(at).domain()).range();
      full = full ? full.intersect(prefixes) : prefixes;
      return;
    }
    for (let o = 0; o < factors[k]!; o++) offsets(k + 1, [...chosen, o]);
  };
  offsets(0, []);
  // { isolate[[prefix] -> [strip]] : prefix in full }
  const isolate = UnionMap.fromDomainAndRange(full!, IslSet.universe(strip.bandGetSpace()).toUnionSet()).wrap().asSet().setTupleName('isolate').toUnionSet();
  // { [isolate[] -> unroll[k]] } for each jammed member k
  const unrollSpace = Space.unit(ctx).addNamedTupleIdUi(ctx.id('isolate'), 0).addNamedTupleIdUi(ctx.id('unroll'), 1).wrap();
  const unroll = factors.map((_, k) => IslSet.universe(unrollSpace).fixSi(DimType.set, 0, k)).reduce((a, b) => a.union(b)).toUnionSet();
  return isolate.union(unroll);
}

/** How many iterations of a jammed member run unrolled in one iteration of the innermost loop. */
const jamFactor = 4;

/**
 * The members of a tiled band to unroll and jam into its innermost loop: at most the two
 * innermost other members along which some access stays on one element (a register then
 * keeps it over the unrolled copies: gemm's C[i][j] along k, B[k][j] along i). The copies run
 * in the members' order inside each iteration of the innermost loop, so every location keeps
 * the order of its accesses (the band is permutable).
 */
function jammed(model: ScopModel, statements: readonly ScopStatementModel[], mupa: MultiUnionPwAff): boolean[] {
  const n = mupa.size();
  const moves = statements.map((st) => [st, memberMoves(model, st, mupa)] as const);
  const reuse = Array.from({ length: n }, (_, m) =>
    m < n - 1 && moves.some(([st, along]) => {
      const a = along[m]!;
      return typeof a === 'number' && st.accesses.some((acc) => acc.array.kind === 'array' && stride(model, st, acc, a) === 'invariant');
    }),
  );
  let left = 2;
  for (let m = n - 1; m >= 0; m--) {
    if (reuse[m] && left > 0) left--;
    else reuse[m] = false;
  }
  return reuse;
}

/** Whether a matmul statement `st` reads an operand across rows along j (transform/matmul.ts, packedOperands). */
function needsPacking(model: ScopModel, st: ScopStatementModel): boolean {
  const roles = matmulRoles(model, st);
  return roles !== undefined && packedOperands(model, st, roles, 0).length > 0;
}

/** The matmul path for a permutable band: its one statement is a matrix multiplication (transform/matmul.ts) and the band's three members run its three loops. */
function matmulBand(model: ScopModel, mupa: MultiUnionPwAff, o: ScheduleOptions, packs: number): { info: MatmulInfo; along: number[] } | undefined {
  if (mupa.size() !== 3 || matmulRefused(model, o.matmulParametric) !== undefined) return undefined;
  const statements = model.statements.filter((s) => !mupa.domain().intersect(s.domain.toUnionSet()).isEmpty());
  if (statements.length !== 1) return undefined;
  const st = statements[0]!;
  const along = memberMoves(model, st, mupa);
  if (!along.every((a): a is number => typeof a === 'number') || new Set(along).size !== 3) return undefined;
  const roles = matmulRoles(model, st);
  if (!roles) return undefined;
  const elementBytes = Math.max(1, ...st.accesses.filter((a) => a.array.kind === 'array').map((a) => a.array.elementBytes));
  if (parametricRefusal(model, st, needsPacking(model, st), o.matmulParametricPack, { mupa, i: along.indexOf(roles.i) }) !== undefined) return undefined;
  const packing = o.pack ? packedOperands(model, st, roles, packs, o.packA) : [];
  const packed = packing.map((p) => st.accesses[p.access]!.array.name);
  return { info: { statement: st.name, roles, sizes: matmulSizes(o.caches, o.vectorBytes, elementBytes, threadBlocks(model, st, roles, o)), packed, packing }, along };
}

/**
 * matmulSizes' setting on threads (--parallel): the A-like reads of `st`, or undefined (blocks
 * for one thread) off threads, in SCoPs of three products or more, and at parametric sizes:
 * with smaller blocks each product runs several ic blocks, and 3mm's three at LARGE (800 rows,
 * Mc 512) sent isl's AST over the codegen quota (1.09M operations), so that its fast path kept
 * the original order; parametric ASTs are larger still (transform/matmul.ts).
 */
function threadBlocks(model: ScopModel, st: ScopStatementModel, roles: MatmulRoles, o: ScheduleOptions): { aBlocks: number } | undefined {
  if (!o.threads || model.context.dim(DimType.param) > 0 || model.statements.filter((s) => matmulRoles(model, s) !== undefined).length > 2) return undefined;
  return { aBlocks: aLikeReads(model, st, roles) };
}

function bandTileSizes(model: ScopModel, statements: readonly ScopStatementModel[], members: number, o: ScheduleOptions, mupa: MultiUnionPwAff): { sizes: number[]; why: string } {
  if (o.tileSizes && o.tileSizes.length > 0) {
    const given = o.tileSizes;
    return { sizes: Array.from({ length: members }, (_, k) => given[Math.min(k, given.length - 1)]!), why: 'given by --tile-sizes' };
  }
  const arrays = new Set(statements.flatMap((s) => s.accesses.filter((a) => a.array.kind === 'array').map((a) => a.array)));
  const elementBytes = Math.max(1, ...[...arrays].map((a) => a.elementBytes));
  const moves = statements.map((st) => [st, memberMoves(model, st, mupa)] as const);
  // Arrays walked along both innermost members: a plane the members outside walk again (tile-sizes.ts).
  const planes = new Set(
    moves.flatMap(([st, along]) => {
      const [mid, inner] = [along[members - 2], along[members - 1]];
      if (members < 3 || typeof mid !== 'number' || typeof inner !== 'number') return [];
      const walked = (acc: ScopStatementModel['accesses'][number], d: number): boolean => ['unit', 'other'].includes(stride(model, st, acc, d));
      return st.accesses.filter((acc) => acc.array.kind === 'array' && walked(acc, mid) && walked(acc, inner)).map((acc) => acc.array);
    }),
  ).size;
  const input = { caches: o.caches, vectorBytes: o.vectorBytes, elementBytes, arrays: arrays.size, members, planes };
  // Accesses the innermost member walks across rows (transform/column-walk-tiles.ts).
  const walks = moves.reduce((k, [st, along]) => k + acrossRows(model, st, along[members - 1]!), 0);
  const t = walks > 0 ? columnWalkTileSizes(input, walks) : tileSizes(input);
  return { sizes: [...t.sizes], why: t.why };
}

/** The loops of an AST built from an optimized schedule that run a member under one of `marks` (default: `tsopt_parallel`). */
export function markedParallelLoops(ast: AstNodeTree, marks: readonly string[] = [parallelMark]): Set<AstNodeTree> {
  const out = new Set<AstNodeTree>();
  const visit = (n: AstNodeTree, parallel: boolean): void => {
    switch (n.kind) {
      case 'mark':
        visit(n.node, marks.includes(n.mark));
        return;
      case 'for':
        if (parallel) out.add(n);
        // A loop inside without a mark of its own is not one of this member's.
        visit(n.body, false);
        return;
      case 'block':
        for (const c of n.children) visit(c, parallel);
        return;
      case 'if':
        visit(n.then, parallel);
        if (n.else) visit(n.else, parallel);
        return;
      case 'user':
        return;
    }
  };
  visit(ast, false);
  return out;
}

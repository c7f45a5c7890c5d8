// The right-looking order of an LU-style factorization (issue 20: lu). -O3's PolyBench lu runs
// Doolittle's row-by-row order: for each row i, its L part (`A[i][j] -= A[i][k] * A[k][j]` over
// k < j, then `A[i][j] /= A[j][j]`) and its U part (the same update over k < i). The row loop
// carries everything, so no loop of that order runs on threads. Polly's isl schedule is
// right-looking: k outermost, and within one k the column's divisions, then both updates over
// (i, j), tiled and parallel. isl's scheduler does not find it from tsopt's model (README,
// `--parallel`: quota, or no schedule within 4.5 minutes); this builds it from the model instead:
//
//   band [t]            sequential: each reduction statement's innermost (reduction) loop k; every
//                       other statement at one of its own counters or 0, the first that keeps its
//                       dependences with the reduction statements forward in t
//     sequence          one filter per statement, in an order that keeps every dependence between
//                       two statements at one t (a topological order, ties in the source order)
//       band [..]       the statement's other counters, permutable and coincident where its own
//                       dependences at one t say so; tiled and marked by the optimizer as usual
//
// With --parallel, neighbours of the sequence that run at some step in common share their first
// other counter (the row) where it stays coincident: one filter for them, a band [row] in blocks
// of `rowBlock` rows for the threads to claim, then a sequence of each statement's other
// counters. lu's divisions and both updates of a row then run in one team per step (two before,
// one per update), each row whole on one thread.
//
// Each element is still updated in increasing k and divided after its last update, so the
// results are bit for bit the original's; the whole tree is checked with isl against every
// dependence before it is taken. Tried only where the row loop of a reduction carries a
// dependence (gemm's row loop is parallel: isl's scheduler does better there), and only on a
// model without register sums across the reduction (-O3's PHIs tie every row's sum to one
// location: DeLICM's model, with every scalar mapped, is the one that takes it;
// passes/schedule-sources.ts).
import { Aff, DimType, MultiAff, MultiPwAff, MultiUnionPwAff, Set as IslSet, UnionMap, type UnionSet, UnionPwAff } from 'isl-wasm';
import type { ScopModel, ScopStatementModel } from '../polyhedral/model';
import { counterAff } from '../polyhedral/schedule';
import { decideOnPlan, onDomains, orderedDependences, type ScheduleDecision, type ScheduleOptions } from './schedule-optimizer';
import type { Plan } from './schedule-plan';
import { lexLess } from './time-tiling';

/**
 * isl operations the right-looking order may spend on one model, within the schedule step: its
 * whole attempt on PolyBench lu takes 0.10M, ludcmp 0.13M; a nest it refuses late (adi, doitgen)
 * took up to 1.5M, which isl's scheduler then lacked or the compile paid for nothing.
 */
export const rightLookingMaxOperations = 300_000;

/**
 * Rows of a step's shared band in each block the threads claim. The rows of lu's trailing matrix
 * all do the same work; counted over PolyBench lu's LARGE steps (N = 2000), blocks of 32 claimed
 * one at a time leave the busiest of two threads 0.6% over half the work (blocks of 256: 6.7%;
 * the two updates' own 256-row tiles, a team each, before: 8.1%), in 63 claims a step at most.
 */
const rowBlock = 32;

export type RightLookingResult = { readonly decision: ScheduleDecision } | { readonly refused: string };

/** Where a statement runs along the outer band t: one of its counters, or the constant 0. */
type TimeChoice = number | 'zero';

/**
 * The reduction statements of `model` of `minLoops` loops or more (at least two): alone in an
 * innermost loop that carries a flow dependence. `also` is asked before the flows, which may read
 * the exact dataflow: the loops and the parallel loops first.
 */
function reductionStatements(model: ScopModel, minLoops = 2, also: (st: ScopStatementModel) => boolean = () => true): ScopStatementModel[] {
  return model.statements.filter((st) => {
    const n = st.loops.length;
    if (n < Math.max(2, minLoops)) return false;
    const k = st.loops[n - 1]!;
    if (model.statements.some((o) => o !== st && o.loops.includes(k)) || model.dependences.parallelLoops.includes(k) || !also(st)) return false;
    return model.dependences.carriesFlow(k);
  });
}

/**
 * Why `model` has no nest the right-looking order is meant for, or undefined: it needs a
 * reduction statement of three loops or more (i, j, k) whose outermost loop carries a
 * dependence, and no scalar (a register sum ties the rows together).
 */
export function rightLookingShape(model: ScopModel): string | undefined {
  const nest = rightLookingNest(model);
  if (nest !== undefined) return nest;
  if (hasScalars(model)) return 'a scalar (a register sum) is written in the SCoP';
  return undefined;
}

/** `rightLookingShape` but for the scalars: a nest DeLICM's model, with every scalar mapped, may give the order. */
export function rightLookingNest(model: ScopModel): string | undefined {
  const rowCarries = (st: ScopStatementModel): boolean => !model.dependences.parallelLoops.includes(st.loops[0]!);
  if (reductionStatements(model, 3, rowCarries).length === 0) return 'no reduction in a nest of three loops or more whose outermost loop carries a dependence';
  return undefined;
}

/** Some statement of `model` touches a scalar (a value or a PHI, not an array element). */
export function hasScalars(model: ScopModel): boolean {
  return model.statements.some((st) => st.accesses.some((a) => a.array.kind !== 'array'));
}

/** isl's steps along t for one model's dependences: the helpers of the placement and the tree. */
function alongT(ordered: UnionMap) {
  const between = (a: ScopStatementModel, b: ScopStatementModel): UnionMap => ordered.intersectDomain(a.domain.toUnionSet()).intersectRange(b.domain.toUnionSet());
  const timeAff = (st: ScopStatementModel, c: TimeChoice): Aff => (c === 'zero' ? Aff.zeroOnDomainSpace(st.domain.getSpace()) : counterAff(st.domain, c));
  // { S[..] -> [t] } for the statements chosen so far
  const timeMap = (chosen: Map<ScopStatementModel, TimeChoice>): UnionMap =>
    UnionMap.fromMultiUnionPwAff(MultiUnionPwAff.fromUnionPwAff([...chosen].map(([st, c]) => UnionPwAff.fromAff(timeAff(st, c))).reduce((a, b) => a.unionAdd(b))));
  // { [dt] }: how far along t each pair of `deps` moves, under `time`
  const steps = (deps: UnionMap, time: UnionMap): IslSet | undefined => {
    const d = deps.applyDomain(time).applyRange(time).deltas();
    return d.isEmpty() ? undefined : d.asSet();
  };
  const forward = (deps: UnionMap, time: UnionMap): boolean => {
    const d = steps(deps, time);
    return d === undefined || d.isSubset(nonNegative(d, 0));
  };
  return { between, timeAff, timeMap, steps, forward };
}

/**
 * Each statement's place along t under the dependences `ordered`: the reduction statements at
 * their innermost counter, every other one at the first of its counters (innermost first), or
 * 0, that keeps its own dependences and those with the reduction statements forward along t; or
 * the statement with no such place. isl objects in the caller's scope.
 */
function placesAlongT(model: ScopModel, ordered: UnionMap, reductions: ReadonlySet<ScopStatementModel>): Map<ScopStatementModel, TimeChoice> | string {
  const { between, timeMap, forward } = alongT(ordered);
  const time = new Map<ScopStatementModel, TimeChoice>();
  for (const st of reductions) time.set(st, st.loops.length - 1);
  const fixed = [...reductions];
  for (const st of model.statements) {
    if (reductions.has(st)) continue;
    const choices: TimeChoice[] = [...st.loops.map((_, d) => st.loops.length - 1 - d), 'zero'];
    const found = choices.find((c) => {
      const t = timeMap(new Map([...fixed.map((r) => [r, time.get(r)!] as const), [st, c] as const]));
      return forward(between(st, st), t) && fixed.every((r) => forward(between(st, r), t) && forward(between(r, st), t));
    });
    if (found === undefined) return `${st.name} has no place along the reduction loop that keeps its dependences forward`;
    time.set(st, found);
  }
  return time;
}

/**
 * Why DeLICM's model of `model` (every scalar mapped) would give no right-looking order, from
 * `model`'s array dependences alone (cheaper than DeLICM; adi: 0.56M operations), or undefined.
 * Mapping adds dependences and takes none away, so a statement with no place along t under the
 * array dependences has none under the mapped model's either.
 */
export function noPlaceOnArrays(model: ScopModel): string | undefined {
  return model.ctx.scope(() => {
    const d = model.dependences;
    const arrays = onDomains(model, d.raw.array.union(d.war.array).union(d.waw.array));
    const places = placesAlongT(model, arrays, new Set(reductionStatements(model)));
    return typeof places === 'string' ? places : undefined;
  });
}

/**
 * The right-looking schedule of `model` (see the head of this file) through the optimizer's
 * cost model, tiling and marks (`decideOnPlan`), or why not. The schedule is kept in the model's
 * context (the caller disposes it). isl errors (the quota) pass through.
 */
export function rightLooking(model: ScopModel, baseInnermost: (st: ScopStatementModel) => number, o: ScheduleOptions): RightLookingResult {
  const shape = rightLookingShape(model);
  if (shape !== undefined) return { refused: shape };
  const ctx = model.ctx;
  return ctx.scope((): RightLookingResult => {
    const reductions = new Set(reductionStatements(model));
    // [params] -> { S[..] -> T[..] }: RAW, WAR, WAW of arrays
    const ordered = orderedDependences(model);
    const { between, timeAff, timeMap, steps, forward } = alongT(ordered);
    const time = placesAlongT(model, ordered, reductions);
    if (typeof time === 'string') return { refused: time };
    const t = timeMap(time);
    if (!forward(ordered, t)) return { refused: 'some dependence runs backward along the reduction loop' };

    // Within one t: statement a before b where a dependence joins them at one t.
    const sameT = (a: ScopStatementModel, b: ScopStatementModel): boolean => {
      const d = steps(between(a, b), t);
      return d !== undefined && !d.intersect(d.fixSi(DimType.set, 0, 0)).isEmpty();
    };
    const order: ScopStatementModel[] = [];
    const left = [...model.statements];
    while (left.length > 0) {
      const next = left.find((b) => !left.some((a) => a !== b && sameT(a, b)));
      if (next === undefined) return { refused: 'the statements at one step of the reduction loop depend on each other both ways' };
      order.push(next);
      left.splice(left.indexOf(next), 1);
    }

    // A statement's counters other than its place along t
    const membersOf = (st: ScopStatementModel): number[] => st.loops.map((_, d) => d).filter((d) => d !== time.get(st));
    // { S[..] -> [m, ..] }: the counters `members` of a statement
    const countersOf = (st: ScopStatementModel, members: readonly number[]): MultiAff => members.map((d) => MultiAff.fromAff(counterAff(st.domain, d))).reduce((a, b) => a.flatRangeProduct(b));
    /**
     * A band of `members(st)` for each statement of `group` (as many for each), below the
     * members `outer(st)`: permutable and coincident from the dependences among the group at one
     * t and one value of the outer members; undefined without members.
     */
    const bandOf = (group: readonly ScopStatementModel[], members: (st: ScopStatementModel) => number[], outer: (st: ScopStatementModel) => number[] = () => []) => {
      const n = members(group[0]!).length;
      if (n === 0) return undefined;
      const fixed = 1 + outer(group[0]!).length;
      // { S[..] -> [t, outer.., m0, ..] } over the group
      const full = group.map((st) => UnionMap.fromMultiUnionPwAff(MultiUnionPwAff.fromMultiPwAff(MultiPwAff.fromMultiAff(
        [MultiAff.fromAff(timeAff(st, time.get(st)!)), ...[...outer(st), ...members(st)].map((d) => MultiAff.fromAff(counterAff(st.domain, d)))].reduce((a, b) => a.flatRangeProduct(b)),
      )))).reduce((a, b) => a.union(b));
      // { S[..] -> [m0, ..] }
      const mupa = group.map((st) => MultiUnionPwAff.fromMultiPwAff(MultiPwAff.fromMultiAff(countersOf(st, members(st))))).reduce((a, b) => a.unionAdd(b));
      const domains = group.map((st) => st.domain.toUnionSet()).reduce((a, b) => a.union(b));
      // { [dt, d_outer.., d0, ..] : dt = d_outer = 0 }: the group's dependences within one t and one value of the outer members
      let within = steps(ordered.intersectDomain(domains).intersectRange(domains), full);
      for (let k = 0; k < fixed && within !== undefined; k++) within = within.fixSi(DimType.set, k, 0);
      const none = within === undefined || within.isEmpty();
      const permutable = none || Array.from({ length: n }, (_, m) => m).every((m) => within!.isSubset(nonNegative(within!, fixed + m)));
      const coincident = Array.from({ length: n }, (_, m) => none || within!.isSubset(within!.fixSi(DimType.set, fixed + m, 0)));
      return { mupa, permutable, coincident };
    };
    const first = (st: ScopStatementModel): number[] => membersOf(st).slice(0, 1);
    const rest = (st: ScopStatementModel): number[] => membersOf(st).slice(1);

    // Each statement's other counters: a band, permutable and coincident where the dependences at
    // one t allow. With --parallel, neighbours in `order` running at some step in common share
    // their first member (the row: lu's divisions and both updates) where it stays coincident,
    // each with a band of its other counters inside: one team per step instead of one per
    // statement, and each row of the trailing matrix whole on one thread, so that the rows'
    // equal work shares out evenly; the rows in blocks of `rowBlock` that the threads claim.
    // { [t] }: the steps a statement runs at
    const stepsOf = (st: ScopStatementModel): UnionSet => timeMap(new Map([[st, time.get(st)!]])).intersectDomain(st.domain.toUnionSet()).range();
    const groups: ScopStatementModel[][] = [];
    for (const st of order) {
      const last = groups[groups.length - 1];
      const joins = o.threads === true && last !== undefined && first(st).length > 0 && last.every((x) => first(x).length > 0)
        && !last.map(stepsOf).reduce((a, b) => a.union(b)).intersect(stepsOf(st)).isEmpty();
      const row = joins ? bandOf([...last, st], first) : undefined;
      if (row && row.permutable && row.coincident[0]) last!.push(st);
      else groups.push([st]);
    }
    let anyCoincident = false;
    const leaf: Plan = { kind: 'leaf' };
    const bandPlan = (b: NonNullable<ReturnType<typeof bandOf>>, child: Plan, blocks?: number): Plan => {
      if (b.coincident.some((x) => x)) anyCoincident = true;
      return { kind: 'band', mupa: b.mupa, permutable: b.permutable, coincident: b.coincident, child, ...(blocks !== undefined ? { blocks } : {}) };
    };
    const children = groups.map((group) => {
      const filter: UnionSet = group.map((st) => st.domain.toUnionSet()).reduce((a, b) => a.union(b));
      if (group.length === 1) {
        const band = bandOf(group, membersOf);
        return { filter, child: band ? bandPlan(band, leaf) : leaf };
      }
      // The shared row, then each statement's other counters in `order`.
      const inner = group.map((st) => {
        const band = rest(st).length > 0 ? bandOf([st], rest, first) : undefined;
        return { filter: st.domain.toUnionSet(), child: band ? bandPlan(band, leaf) : leaf };
      });
      return { filter, child: bandPlan(bandOf(group, first)!, { kind: 'sequence', children: inner }, rowBlock) };
    });
    if (!anyCoincident) return { refused: 'no loop inside the reduction loop runs without a dependence' };
    const tMupa = MultiUnionPwAff.fromUnionPwAff(model.statements.map((st) => UnionPwAff.fromAff(timeAff(st, time.get(st)!))).reduce((a, b) => a.unionAdd(b)));
    const plan: Plan = { kind: 'band', mupa: tMupa, permutable: true, coincident: [false], child: { kind: 'sequence', children } };
    const placed = model.statements.map((st) => `${st.name}: ${time.get(st) === 'zero' ? '0' : `i${time.get(st)}`}`).join(', ');
    const d = decideOnPlan(model, plan, '', baseInnermost, o, true);
    if (d.schedule === undefined) return { refused: d.why };

    // Every dependence still runs forward in the tree as built (tiles included).
    const map = d.schedule.getMap();
    const images = ordered.applyDomain(map).applyRange(map);
    if (!images.isEmpty() && !images.isSubset(lexLess(model, images))) {
      d.schedule.dispose();
      return { refused: 'the right-looking tree would reorder a dependence' };
    }
    const shared = groups.filter((g) => g.length > 1).map((g) => `${g.map((st) => st.name).join(', ')} share a band`);
    const why = `the reduction loop outermost (${placed}), the rest tiled inside each of its steps${shared.length > 0 ? `; ${shared.join('; ')}` : ''}`;
    return { decision: { ...d, why: `right-looking order taken: ${why}; ${d.why.replace(/^isl's schedule taken: /, '')}`, rightLooking: why } };
  });
}

/** { x : x_m >= 0 } in the space of `like`. */
function nonNegative(like: IslSet, m: number): IslSet {
  const x = counterAff(like, m);
  return IslSet.universe(like.getSpace()).intersect(Aff.zeroOnDomainSpace(like.getSpace()).leSet(x));
}

// Unroll-and-jam of the rows of a triangular solve (issue 23: trisolv, cholesky). In
//
//   for r:  s = init(r);  for k < f(r): s = s op a(r, k) * b(k);  x[r] = g(s)
//
// each row's sum is one chain of dependent operations along k, bound by their latency (-O3
// keeps s in a register, or DeLICM maps it onto x[r]). Where row r's k range reads what earlier
// rows finished (forward substitution: x[k] for k < r), U rows can run together below the rows
// finished before their block: rows r0..r0+U-1 (r0 = U floor(r / U)) jammed into one k loop over
// the k every row of the block runs, U independent chains whose b(k) is loaded once, then the
// rest of each row (the triangle inside the block, its division) row by row in the source order:
//
//   [outer loops, in the original order]
//   R = floor(r / U)
//     sequence: the statements before the chain in r's body, rows of the block in order
//               mark tsopt_row_jam ─ k ─ r (unrolled: U copies)   the jammed instances
//               the chain's other instances and the statements after it, in the original order
//
// Each row's sum keeps its k order, so the results are bit for bit the original's; the tree is
// checked with isl against every dependence (a PHI of the plain model, one location for every
// row, refuses it: then DeLICM's model, where the sum lives in x[r], is tried;
// passes/schedule-sources.ts). The jammed instances' reads of other elements of the array the
// chain writes (x[k]) never touch an element a row of the same block reads or writes (isl, here):
// codegen/row-jam.ts gives them and the rows' accesses alias scopes of their own, so opt keeps
// the U sums in registers across k.
import { Aff, AstLoopType, DimType, MultiAff, MultiUnionPwAff, Schedule, type ScheduleNode, type UnionMap, type UnionSet, UnionPwAff, UnionSetList } from 'isl-wasm';
import type { Instruction } from '../ir';
import type { ScopModel, ScopStatementModel } from '../polyhedral/model';
import { counterAff } from '../polyhedral/schedule';
import { orderedDependences, type ScheduleDecision } from './schedule-optimizer';
import { lexLess } from './time-tiling';

/** The mark above the jammed k loop; codegen/row-jam.ts scopes the statements below it. */
export const rowJamMark = 'tsopt_row_jam';

export interface RowJamOptions {
  /** Rows jammed together (U). */
  readonly factor: number;
}

/** What the row jam did to one SCoP (the report's `schedule.rowJammed`). */
export interface RowJammed {
  /** The chain statement whose rows run jammed. */
  readonly statement: string;
  readonly factor: number;
  /** Depth (1 = outermost) of the row loop. */
  readonly rowDepth: number;
  readonly why: string;
  /** The chain's loads of other elements of the array it writes (x[k]): codegen gives them the finished rows' scope. */
  readonly finishedReads: readonly Instruction[];
  /**
   * Two instances of the chain whose rows differ modulo the factor never touch one element of
   * that array: codegen may give each of the U unrolled rows a scope of its own.
   */
  readonly rowsApart: boolean;
}

export type RowJamResult = { readonly decision: ScheduleDecision } | { readonly refused: string };

/** The chain statement and the statements of its row loop, or why `model` has no such nest. */
interface Shape {
  readonly chain: ScopStatementModel;
  /** Index of the row loop among the chain's loops (the one around its innermost). */
  readonly d: number;
  readonly inRow: readonly ScopStatementModel[];
}

/**
 * The nest the row jam applies to, from the loops and the carried dependences alone (cheap): a
 * statement alone in its innermost loop k, which carries a flow dependence (the chain), in a row
 * loop r carrying a flow dependence too (rows read what earlier rows finished), whose other
 * statements sit in r's body outside any loop of their own, with no other nest of two loops of
 * its own in the SCoP.
 */
export function rowJamShape(model: ScopModel): Shape | string | NestRefused {
  let why = 'no statement alone in an innermost loop that carries a flow dependence';
  for (const chain of model.statements) {
    const n = chain.loops.length;
    if (n < 2) continue;
    const k = chain.loops[n - 1]!;
    const r = chain.loops[n - 2]!;
    const flows = (loop: typeof k): boolean => model.dependences.carriesFlow(loop);
    // The loops first: the flows read the exact dataflow.
    if (model.statements.some((st) => st !== chain && st.loops.includes(k)) || !flows(k)) continue;
    const inRow = model.statements.filter((st) => st.loops[n - 2] === r);
    if (inRow.some((st) => st !== chain && st.loops.length !== n - 1)) {
      why = `${chain.name}'s row loop holds another loop`;
      continue;
    }
    if (!flows(r)) {
      why = `${chain.name}'s rows read nothing earlier rows wrote`;
      continue;
    }
    const nest = otherNest(model, chain, inRow);
    if (nest) return new NestRefused(`${chain.name}'s rows share the SCoP with another nest (${nest.name}'s loops), left to the optimizer`);
    return { chain, d: n - 2, inRow };
  }
  return why;
}

/**
 * The jam reorders its own nest only; the SCoP's other statements keep their original order. A
 * nest of two loops or more of its own (outside the chain's) has an order isl's scheduler or the
 * interchange, seeing the whole SCoP, may change (lu's and ludcmp's second nest, tiled): left to
 * them. One loop at most has none to change (cholesky's diagonal, one sum per row i after the
 * entries left of it). A statement of such a nest, or undefined.
 */
function otherNest(model: ScopModel, chain: ScopStatementModel, inRow: readonly ScopStatementModel[]): ScopStatementModel | undefined {
  return model.statements.find((st) => !inRow.includes(st) && st.loops.filter((l) => !chain.loops.includes(l)).length >= 2);
}

/**
 * True when `rowJamShape` cannot give a nest, from the loops alone (no dependence read): every
 * statement that could be a chain by its loops (alone in an innermost loop inside another, whose
 * other statements sit in the row loop's body) shares the SCoP with another nest, so the search
 * ends in a `NestRefused` or finds nothing whatever the flows say. A probe that only wants a
 * nest asks this first: the flows read the exact dataflow (ludcmp: 0.37M isl operations).
 */
export function noRowJamNestByLoops(model: ScopModel): boolean {
  return model.statements.every((chain) => {
    const n = chain.loops.length;
    if (n < 2) return true;
    const k = chain.loops[n - 1]!;
    const r = chain.loops[n - 2]!;
    if (model.statements.some((st) => st !== chain && st.loops.includes(k))) return true;
    const inRow = model.statements.filter((st) => st.loops[n - 2] === r);
    if (inRow.some((st) => st !== chain && st.loops.length !== n - 1)) return true;
    return otherNest(model, chain, inRow) !== undefined;
  });
}

/** A nest of the row jam's shape refused for its SCoP (the report says why). */
export class NestRefused {
  constructor(readonly why: string) {}
}

/** The constants of `st`'s 2D+1 schedule (its even dimensions): its place in each loop body. */
function places(st: ScopStatementModel): number[] {
  const range = st.schedule.range();
  const out: number[] = [];
  for (let p = 0; p < range.dim(DimType.set); p += 2) out.push(range.dimMaxVal(p).getNumSi());
  return out;
}

/**
 * The row-jammed schedule of `model` (see the head of this file), kept in the model's context
 * (the caller disposes it), or why not. isl errors (the quota) pass through.
 */
export function rowJam(model: ScopModel, o: RowJamOptions): RowJamResult {
  const shape = rowJamShape(model);
  if (typeof shape === 'string') return { refused: shape };
  if (shape instanceof NestRefused) return { refused: shape.why };
  const ctx = model.ctx;
  const { chain, d, inRow } = shape;
  const U = o.factor;
  if (U < 2) return { refused: `a factor of ${U} jams nothing` };
  return ctx.scope((): RowJamResult => {
    // Profitability: with constant sizes, rows too few or sums too short leave nothing to overlap.
    if (model.context.dim(DimType.param) === 0) {
      const dom = chain.domain.intersectParams(model.context);
      const rows = dom.dimMaxVal(d).getNumSi() - dom.dimMinVal(d).getNumSi() + 1;
      const longest = dom.dimMaxVal(d + 1).getNumSi() - dom.dimMinVal(d + 1).getNumSi() + 1;
      if (rows < 2 * U) return { refused: `${rows} rows: fewer than twice the factor ${U}` };
      if (longest < 2 * U) return { refused: `sums of at most ${longest} terms: shorter than twice the factor ${U}` };
    }
    const dims = chain.schedule.range().dim(DimType.set);
    const placesOf = new Map(model.statements.map((st) => [st, places(st)] as const));
    /** Dimension p of `st`'s original 2D+1 schedule as an affine function on its domain. */
    const original = (st: ScopStatementModel, p: number): Aff => {
      if (p % 2 === 1 && (p - 1) / 2 < st.loops.length) return counterAff(st.domain, (p - 1) / 2);
      const c = p % 2 === 0 ? placesOf.get(st)![p / 2]! : 0;
      return Aff.zeroOnDomainSpace(st.domain.getSpace()).addConstantVal(ctx.val(c));
    };
    const mupa = (sts: readonly ScopStatementModel[], f: (st: ScopStatementModel) => Aff): MultiUnionPwAff =>
      MultiUnionPwAff.fromUnionPwAff(sts.map((st) => UnionPwAff.fromAff(f(st))).reduce((a, b) => a.unionAdd(b)));
    const band = (node: ScheduleNode, sts: readonly ScopStatementModel[], f: (st: ScopStatementModel) => Aff): ScheduleNode =>
      node.insertPartialSchedule(mupa(sts, f)).child(0);
    /** The original order of `sts` in dimensions `from` to `to` - 1, one band each; returns the node below. */
    const originalFrom = (node: ScheduleNode, sts: readonly ScopStatementModel[], from: number, to = dims): ScheduleNode => {
      let n = node;
      for (let p = from; p < to; p++) n = band(n, sts, (st) => original(st, p));
      return n;
    };
    /** Climbs from `node` to the ancestor at tree depth `depth`. */
    const up = (node: ScheduleNode, depth: number): ScheduleNode => node.ancestor(node.getTreeDepth() - depth);
    const union = (sets: readonly UnionSet[]): UnionSet => sets.reduce((a, b) => a.union(b));
    const domainOf = (sts: readonly ScopStatementModel[]): UnionSet => union(sts.map((st) => st.domain.toUnionSet()));

    // The jammed instances: chain[.., r, k] whose every row r0 + u of the block runs k too.
    const r0 = counterAff(chain.domain, d).scaleDownVal(ctx.val(U)).floor().scaleVal(ctx.val(U));
    let jammed = chain.domain;
    for (let u = 0; u < U; u++) {
      const row = MultiAff.identityOnDomainSpace(chain.domain.getSpace()).setAt(d, r0.addConstantVal(ctx.val(u)));
      jammed = jammed.intersect(chain.domain.preimageMultiAff(row));
    }
    jammed = jammed.intersectParams(model.context).coalesce();
    if (jammed.isEmpty()) return { refused: `no block of ${U} rows runs a common k` };
    const chainPlace = placesOf.get(chain)![d + 1]!;
    const before = inRow.filter((st) => st !== chain && placesOf.get(st)![d + 1]! < chainPlace);
    const after = inRow.filter((st) => st !== chain && !before.includes(st));
    const others = model.statements.filter((st) => !inRow.includes(st));

    // The loops around the row loop and the place of r's loop in its body, as in the source.
    let node = originalFrom(Schedule.fromDomain(model.domains).getRoot().child(0), model.statements, 0, 2 * d + 1);
    if (others.length > 0) {
      // Within one iteration of the loops around r, the statements outside r's loop never run with it: their order is unchanged.
      node = node.insertSequence(UnionSetList.fromUnionSet(domainOf(inRow)).add(domainOf(others)));
      const depth = node.getTreeDepth();
      node = up(originalFrom(node.child(1).child(0), others, 2 * d + 1), depth).child(0).child(0);
    }
    node = band(node, inRow, (st) => counterAff(st.domain, d).scaleDownVal(ctx.val(U)).floor());
    const rest = chain.domain.intersectParams(model.context).toUnionSet().subtract(jammed.toUnionSet());
    const parts = [...(before.length > 0 ? [domainOf(before)] : []), jammed.toUnionSet(), after.length > 0 ? rest.union(domainOf(after)) : rest];
    node = node.insertSequence(parts.slice(1).reduce((l, s) => l.add(s), UnionSetList.fromUnionSet(parts[0]!)));
    const seq = node.getTreeDepth();
    let at = 0;
    if (before.length > 0) node = up(originalFrom(node.child(at++).child(0), before, 2 * d + 1), seq);
    const mark = node.child(at++).child(0).insertMark(ctx.id(rowJamMark));
    const markDepth = mark.getTreeDepth();
    const rows = band(band(mark.child(0), [chain], (st) => counterAff(st.domain, d + 1)), [chain], (st) => counterAff(st.domain, d)).parent();
    node = up(rows.bandMemberSetAstLoopType(0, AstLoopType.unroll), markDepth);
    // { chain[..] -> [prefix] }: each jammed instance's block (the loops around r, R)
    const block = node.getPrefixScheduleUnionMap().intersectDomain(jammed.toUnionSet());
    node = up(originalFrom(up(node, seq).child(at).child(0), [chain, ...after], 2 * d + 1), 0);
    const schedule = node.getSchedule();

    // Every dependence still runs forward.
    const map = schedule.getMap();
    const images = orderedDependences(model).applyDomain(map).applyRange(map);
    if (!images.isEmpty() && !images.isSubset(lexLess(model, images))) return { refused: 'the jammed schedule would reorder a dependence' };

    // The chain's reads of other elements of its array, and whether a row of the same block touches what they read.
    const write = chain.accesses.find((a) => a.kind === 'write' && a.array.kind === 'array');
    if (!write) return { refused: `${chain.name} writes no array element` };
    const within = (m: UnionMap): UnionMap => m.intersectDomain(jammed.toUnionSet());
    const own = within(write.relation.toUnionMap());
    const toArray = chain.accesses.filter((a) => a.array === write.array);
    const finished = toArray.filter((a) => a.kind === 'read' && a.instruction !== undefined && !within(a.relation.toUnionMap()).isSubset(own));
    const rowAccesses = toArray.filter((a) => !finished.includes(a));
    if (finished.length > 0) {
      const reads = finished.map((a) => within(a.relation.toUnionMap())).reduce((x, y) => x.union(y));
      const rowsTouch = rowAccesses.map((a) => within(a.relation.toUnionMap())).reduce((x, y) => x.union(y));
      const sameBlock = block.applyRange(block.reverse());
      if (!reads.applyRange(rowsTouch.reverse()).intersect(sameBlock).isEmpty()) return { refused: `${chain.name}'s jammed rows read an element a row of their block writes` };
    }
    // Rows apart: the instances touching one element differ in r by a multiple of U (all the
    // jammed instances, not one block's: scopes hold for the whole function).
    let rowsApart = false;
    if (rowAccesses.length > 0) {
      const touch = rowAccesses.map((a) => within(a.relation.toUnionMap())).reduce((x, y) => x.union(y));
      const pairs = touch.applyRange(touch.reverse());
      const deltas = pairs.isEmpty() ? undefined : pairs.deltas().asSet();
      rowsApart = !deltas || deltas.intersect(counterAff(chain.domain, d).modVal(ctx.val(U)).neSet(Aff.zeroOnDomainSpace(chain.domain.getSpace()))).isEmpty();
    }
    const rowDepth = d + 1;
    const why = `rows of loop depth ${rowDepth} jammed by ${U} over the k every row of the block runs: ${U} independent chains, each term of the other operands loaded once per block`;
    return {
      decision: {
        schedule: schedule.keep(), why: `row-jammed: ${why}`, tiled: [], fused: false, skewed: false, tree: schedule.toStr(), matmul: [],
        rowJammed: { statement: chain.name, factor: U, rowDepth, why, finishedReads: finished.map((a) => a.instruction!), rowsApart },
      },
    };
  });
}

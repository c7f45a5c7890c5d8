// The original schedule of a SCoP: statements in program order, loops as in the
// source. Given in two forms that say the same thing:
//   - the 2D+1 map (Polly's original schedule, what isl's dataflow and our
//     parallelism test use): { Stmt_S[i0, i1] -> [c0, i0, c1, i1, c2] }, where
//     c_k is the position of the statement's enclosing loop (or of the statement)
//     among its siblings, padded with zeros to the SCoP's maximal length;
//   - an isl schedule tree (domain → sequence → band → ...), built with isl's
//     schedule-node operations from the loop/statement tree, the form AST generation and
//     the schedule optimizer start from.
import { Aff, DimType, MultiAff, Schedule, UnionMap, UnionPwMultiAff, UnionSetList, type Map as IslMap, type MultiUnionPwAff, type ScheduleNode, type Set as IslSet, type UnionSet } from 'isl-wasm';
import type { BasicBlock } from '../ir';
import type { ScopLoop } from '../analysis/scop-detection-types';

export interface ScheduledStatement {
  readonly name: string;
  readonly block: BasicBlock;
  /** Outermost first. */
  readonly loops: readonly ScopLoop[];
}

/** The loop/statement tree of a SCoP, children in program order (`scheduleShape`). */
export interface ScheduleShape {
  readonly children: readonly TreeNode[];
}

interface TreeNode {
  readonly loop: ScopLoop | undefined;
  readonly order: number;
  readonly children: TreeNode[];
  readonly statement: ScheduledStatement | undefined;
}

/** The loop/statement tree, children in program order (reverse post-order of the SCoP's blocks). */
function buildTree(statements: readonly ScheduledStatement[], rpo: ReadonlyMap<BasicBlock, number>): TreeNode {
  const root: TreeNode = { loop: undefined, order: -1, children: [], statement: undefined };
  const loopNodes = new Map<ScopLoop, TreeNode>();
  const nodeFor = (loops: readonly ScopLoop[]): TreeNode => {
    let parent = root;
    for (const loop of loops) {
      let node = loopNodes.get(loop);
      if (!node) {
        node = { loop, order: rpo.get(loop.loop.header) ?? Number.MAX_SAFE_INTEGER, children: [], statement: undefined };
        loopNodes.set(loop, node);
        parent.children.push(node);
      }
      parent = node;
    }
    return parent;
  };
  for (const s of statements) {
    nodeFor(s.loops).children.push({ loop: undefined, order: rpo.get(s.block) ?? Number.MAX_SAFE_INTEGER, children: [], statement: s });
  }
  const sort = (n: TreeNode): void => {
    n.children.sort((a, b) => a.order - b.order || (a.statement ? 1 : 0) - (b.statement ? 1 : 0));
    n.children.forEach(sort);
  };
  sort(root);
  return root;
}

/** Maximal loop depth of the statements: the schedule has 2 * depth + 1 dimensions. */
export function scheduleDepth(statements: readonly ScheduledStatement[]): number {
  return Math.max(0, ...statements.map((s) => s.loops.length));
}

/** One dimension of a statement's 2D+1 time: a constant, or counter k of its loops (`i_k`). */
export type TimeDim = { readonly constant: number } | { readonly counter: number };

export interface OriginalSchedule {
  /** `[0, i0, 1, i1, 0]` for `{ Stmt_S[i0, i1] -> [0, i0, 1, i1, 0] }`, by statement name (`timeMap` builds the map). */
  readonly statements: Map<string, readonly TimeDim[]>;
  /**
   * Per loop, the constant schedule dimensions before its counter (t0, t2, ..., t(2k-2)):
   * the instances of the loop's statements are the schedule points with these values.
   */
  readonly loopPositions: Map<ScopLoop, number[]>;
}

/** The 2D+1 schedule of every statement and where each loop sits in it. */
export function originalSchedule(statements: readonly ScheduledStatement[], rpo: ReadonlyMap<BasicBlock, number>): OriginalSchedule {
  const root = buildTree(statements, rpo);
  const width = 2 * scheduleDepth(statements) + 1;
  const out = new Map<string, readonly TimeDim[]>();
  const loopPositions = new Map<ScopLoop, number[]>();
  const walk = (node: TreeNode, prefix: TimeDim[], positions: number[]): void => {
    node.children.forEach((child, position) => {
      if (child.statement) {
        const time: TimeDim[] = [...prefix, { constant: position }];
        while (time.length < width) time.push({ constant: 0 });
        out.set(child.statement.name, time);
      } else {
        loopPositions.set(child.loop!, [...positions, position]);
        walk(child, [...prefix, { constant: position }, { counter: prefix.length / 2 }], [...positions, position]);
      }
    });
  };
  walk(root, [], []);
  return { statements: out, loopPositions };
}

/** Counter k of the instances of `domain` (a statement's) as an affine function on it: { S[i..] -> [i_k] }. */
export function counterAff(domain: IslSet, k: number): Aff {
  return domain.getSpace().identityMultiAffOnDomain().getAt(k);
}

/**
 * [params] -> { Stmt_S[i..] -> [t0, ..., t2D] }: a statement's 2D+1 schedule over its domain's
 * space, built with isl's affine functions. isl objects in the caller's scope.
 */
export function timeMap(domain: IslSet, time: readonly TimeDim[]): IslMap {
  const space = domain.getSpace();
  const dim = (t: TimeDim): MultiAff =>
    MultiAff.fromAff('counter' in t ? counterAff(domain, t.counter) : Aff.zeroOnDomainSpace(space).addConstantVal(domain.ctx.val(t.constant)));
  return time.map(dim).reduce((a, b) => a.flatRangeProduct(b)).asMap();
}

/** The loop/statement tree of `statements` in program order: the shape of the schedule tree (`scheduleTree`). */
export function scheduleShape(statements: readonly ScheduledStatement[], rpo: ReadonlyMap<BasicBlock, number>): ScheduleShape {
  return buildTree(statements, rpo);
}

/** What `scheduleTree` needs of a statement: its name, domain and 2D+1 schedule. */
export interface TreeStatement {
  readonly name: string;
  /** [params] -> { Stmt_S[i..] : ... } */
  readonly domain: IslSet;
  /** [params] -> { Stmt_S[i..] -> [t0, ..., t2D] } */
  readonly schedule: IslMap;
}

/**
 * The schedule tree (domain, sequence and band nodes) of `shape` over `domains`: a sequence where a
 * node has more than one child, filtered by the statements under each child, and a one-member band
 * per loop, `{ Stmt_S[i..] -> [(i_k)] }` for its statements, read off their 2D+1 schedules.
 * isl objects in the caller's scope.
 */
export function scheduleTree(shape: ScheduleShape, domains: UnionSet, statements: readonly TreeStatement[]): Schedule {
  const byName = new Map(statements.map((s) => [s.name, s] as const));
  const under = (n: TreeNode): TreeStatement[] => (n.statement ? [byName.get(n.statement.name)!] : n.children.flatMap(under));
  const unionOf = <T>(items: readonly T[], piece: (x: T) => UnionSet | UnionMap): UnionSet | UnionMap => items.map(piece).reduce((a, b) => (a as UnionMap).union(b as UnionMap));
  // { Stmt_S[i..] ; ... }: every instance of the statements under `n`
  const filter = (n: TreeNode): UnionSet => unionOf(under(n), (s) => s.domain.getSpace().universeSet().toUnionSet()) as UnionSet;
  // { Stmt_S[i..] -> [(i_k)] ; ... }: loop `n`'s counter, dimension 2k + 1 of each statement's time
  const band = (n: TreeNode): MultiUnionPwAff => {
    const t = 2 * (n.loop!.depth - 1) + 1;
    const counter = (s: TreeStatement): UnionMap => {
      const width = s.schedule.dim(DimType.out);
      return s.schedule.projectOut(DimType.out, t + 1, width - t - 1).projectOut(DimType.out, 0, t).toUnionMap();
    };
    return (unionOf(under(n), counter) as UnionMap).asMultiUnionPwAff();
  };
  // Each returns the node at `leaf`'s position, now the top of what it inserted.
  const subtree = (leaf: ScheduleNode, n: TreeNode): ScheduleNode => (n.statement ? leaf : sequence(leaf, n.children).insertPartialSchedule(band(n)));
  const sequence = (leaf: ScheduleNode, children: readonly TreeNode[]): ScheduleNode => {
    if (children.length === 0) return leaf;
    if (children.length === 1) return subtree(leaf, children[0]!);
    let list = UnionSetList.alloc(leaf.ctx, children.length);
    for (const c of children) list = list.add(filter(c));
    let node = leaf.insertSequence(list);
    children.forEach((c, k) => {
      node = subtree(node.child(k).child(0), c).parent().parent();
    });
    return node;
  };
  // The domain node's only child is a leaf.
  const root = Schedule.fromDomain(domains).getRoot();
  return sequence(root.child(0), shape.children).getSchedule();
}

/**
 * The constants of a statement's 2D+1 time, `[c0, i0, c1, i1, ..., c_n, 0, ...]` → `[c0, ..., c_n, 0, ...]`
 * (its even dimensions), read with isl; undefined when one of them is not a constant.
 * isl objects in the caller's scope.
 */
export function timeConstants(schedule: IslMap): number[] | undefined {
  // [params] -> { [t0, ..., t2D] }: the even dimensions are fixed
  const fixed = schedule.range().getPlainMultiValIfFixed();
  const constants: number[] = [];
  for (let k = 0; k < fixed.size(); k += 2) {
    const v = fixed.getAt(k);
    if (!v.isInt()) return undefined;
    constants.push(v.getNumSi());
  }
  return constants;
}

/** The union map of `ma`. */
export function mapOf(ma: MultiAff): UnionMap {
  return UnionMap.fromUnionPwMultiAff(UnionPwMultiAff.fromMultiAff(ma));
}

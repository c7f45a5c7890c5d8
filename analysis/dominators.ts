// Dominator and post-dominator trees (Cooper, Harvey & Kennedy's iterative
// algorithm over reverse post-order), with the `dominator-tree` analysis key.
import { type BasicBlock, type IrFunction, successors, terminator } from '../ir';
import type { AnalysisKey } from './analysis-manager';

export interface DomTree {
  /** Blocks reachable from the root, in reverse post-order (of the forward or reverse CFG). */
  readonly order: readonly BasicBlock[];
  /** Immediate dominator; undefined for the root(s) and unreachable blocks. */
  idom(b: BasicBlock): BasicBlock | undefined;
  /** True when `a` dominates `b` (reflexive). False when either is unreachable. */
  dominates(a: BasicBlock, b: BasicBlock): boolean;
  children(b: BasicBlock): readonly BasicBlock[];
  isReachable(b: BasicBlock): boolean;
  /** Distinct CFG predecessors of `b` in function order (a snapshot: `ir`'s `predecessors` is O(blocks) per call). */
  cfgPredecessors(b: BasicBlock): readonly BasicBlock[];
}

/** Distinct predecessors of every block, in function order, in one pass over the edges. */
export function predecessorMap(fn: IrFunction): Map<BasicBlock, BasicBlock[]> {
  const out = new Map<BasicBlock, BasicBlock[]>();
  for (const b of fn.blocks) out.set(b, []);
  for (const b of fn.blocks) {
    for (const s of new Set(successors(b))) out.get(s)?.push(b);
  }
  return out;
}

/**
 * Builds a dominator tree over an abstract graph. For post-dominators, the graph
 * is reversed and gets a virtual root (undefined) joining every exit block.
 */
function buildTree(roots: readonly BasicBlock[], next: (b: BasicBlock) => readonly BasicBlock[], prev: (b: BasicBlock) => readonly BasicBlock[], preds: ReadonlyMap<BasicBlock, readonly BasicBlock[]>): DomTree {
  // Post-order by an explicit stack (no recursion: functions can be large).
  const visited = new Set<BasicBlock>();
  const post: BasicBlock[] = [];
  for (const root of roots) {
    if (visited.has(root)) continue;
    visited.add(root);
    const stack: [BasicBlock, number][] = [[root, 0]];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const succ = next(top[0]);
      if (top[1] < succ.length) {
        const s = succ[top[1]++]!;
        if (!visited.has(s)) {
          visited.add(s);
          stack.push([s, 0]);
        }
      } else {
        post.push(top[0]);
        stack.pop();
      }
    }
  }
  const order = [...post].reverse();
  const number = new Map<BasicBlock, number>();
  post.forEach((b, i) => number.set(b, i));
  // The virtual root has the highest number; roots point to it.
  const virtualRoot = post.length;
  const rootSet = new Set(roots);
  const idomNum = new Map<BasicBlock, number>();
  for (const r of roots) idomNum.set(r, virtualRoot);
  const blockOf = (n: number): BasicBlock | undefined => post[n];
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while (a < b) a = idomNum.get(blockOf(a)!)!;
      while (b < a) b = idomNum.get(blockOf(b)!)!;
    }
    return a;
  };
  let changed = true;
  while (changed) {
    changed = false;
    for (const b of order) {
      if (rootSet.has(b)) continue;
      let newIdom: number | undefined;
      for (const p of prev(b)) {
        if (!number.has(p) || !idomNum.has(p)) continue;
        newIdom = newIdom === undefined ? number.get(p)! : intersect(number.get(p)!, newIdom);
      }
      if (newIdom !== undefined && idomNum.get(b) !== newIdom) {
        idomNum.set(b, newIdom);
        changed = true;
      }
    }
  }
  const idom = new Map<BasicBlock, BasicBlock | undefined>();
  const children = new Map<BasicBlock, BasicBlock[]>();
  for (const b of order) {
    const n = idomNum.get(b);
    const parent = n === undefined || n === virtualRoot ? undefined : blockOf(n);
    idom.set(b, parent);
    if (parent) {
      const list = children.get(parent) ?? [];
      list.push(b);
      children.set(parent, list);
    }
  }
  // DFS numbering of the tree for O(1) dominance queries.
  const dfsIn = new Map<BasicBlock, number>();
  const dfsOut = new Map<BasicBlock, number>();
  let clock = 0;
  for (const b of order) {
    if (idom.get(b) !== undefined) continue;
    const stack: [BasicBlock, number][] = [[b, 0]];
    dfsIn.set(b, clock++);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const kids = children.get(top[0]) ?? [];
      if (top[1] < kids.length) {
        const k = kids[top[1]++]!;
        dfsIn.set(k, clock++);
        stack.push([k, 0]);
      } else {
        dfsOut.set(top[0], clock++);
        stack.pop();
      }
    }
  }
  return {
    order,
    idom: (b) => idom.get(b),
    children: (b) => children.get(b) ?? [],
    isReachable: (b) => number.has(b),
    cfgPredecessors: (b) => preds.get(b) ?? [],
    dominates(a, b) {
      const ai = dfsIn.get(a);
      const bi = dfsIn.get(b);
      if (ai === undefined || bi === undefined) return false;
      return ai <= bi && dfsOut.get(b)! <= dfsOut.get(a)!;
    },
  };
}

export function computeDominatorTree(fn: IrFunction): DomTree {
  const entry = fn.blocks[0];
  const preds = predecessorMap(fn);
  return buildTree(entry ? [entry] : [], successors, (b) => preds.get(b) ?? [], preds);
}

/** Blocks that leave the function: `ret`, `unreachable`, `resume`, or no successors. */
function exitBlocks(fn: IrFunction): BasicBlock[] {
  return fn.blocks.filter((b) => successors(b).length === 0 || terminator(b)?.opcode === 'ret');
}

/**
 * Post-dominators: `dominates(a, b)` means every path from b to a function exit
 * passes through a. Exits are joined by a virtual root, so `idom` of an exit is undefined.
 */
export function computePostDominatorTree(fn: IrFunction): DomTree {
  const preds = predecessorMap(fn);
  return buildTree(exitBlocks(fn), (b) => preds.get(b) ?? [], successors, preds);
}

export const dominatorTreeAnalysis: AnalysisKey<DomTree> = {
  name: 'dominator-tree',
  compute: (fn) => computeDominatorTree(fn),
};

export const postDominatorTreeAnalysis: AnalysisKey<DomTree> = {
  name: 'post-dominator-tree',
  compute: (fn) => computePostDominatorTree(fn),
};

/**
 * Post-dominators of the CFG without the `excluded` blocks and their edges (error blocks:
 * Polly's region tree treats their paths as never taken, so a loop with a throw inside still
 * has its exit as post-dominator).
 */
export function computePostDominatorTreeWithout(fn: IrFunction, excluded: ReadonlySet<BasicBlock>): DomTree {
  const preds = predecessorMap(fn);
  const kept = (list: readonly BasicBlock[]): BasicBlock[] => list.filter((b) => !excluded.has(b));
  return buildTree(kept(exitBlocks(fn)), (b) => kept(preds.get(b) ?? []), (b) => kept(successors(b)), preds);
}

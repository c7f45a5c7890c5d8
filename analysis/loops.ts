// Natural loops (LLVM's LoopInfo): a loop is a header plus every block that
// reaches one of its back edges (an edge whose target dominates its source)
// without passing the header. Loops sharing a header are one loop.
import { type BasicBlock, type IrFunction, successors } from '../ir';
import type { AnalysisKey, FunctionAnalysisManager } from './analysis-manager';
import { type DomTree, dominatorTreeAnalysis } from './dominators';
import { localNames } from './value-names';
import type { ScevLoop } from './scev';

export interface Loop extends ScevLoop {
  readonly header: BasicBlock;
  /** Blocks of the loop (header first, then in function order), including nested loops' blocks. */
  readonly blocks: readonly BasicBlock[];
  readonly blockSet: ReadonlySet<BasicBlock>;
  readonly parent: Loop | undefined;
  readonly children: readonly Loop[];
  /** Blocks inside with an edge to the header. */
  readonly latches: readonly BasicBlock[];
  /** The single latch, when there is one. */
  readonly latch: BasicBlock | undefined;
  /** The unique block outside the loop whose only successor is the header, when there is one. */
  readonly preheader: BasicBlock | undefined;
  /** Blocks inside with a successor outside. */
  readonly exitingBlocks: readonly BasicBlock[];
  /** Blocks outside with a predecessor inside (distinct, in function order). */
  readonly exitBlocks: readonly BasicBlock[];
  contains(other: ScevLoop): boolean;
  containsBlock(b: BasicBlock): boolean;
}

export interface LoopInfo {
  /** Outermost loops, in function order of their headers. */
  readonly topLevel: readonly Loop[];
  /** Every loop, pre-order (a loop before the loops nested in it). */
  readonly all: readonly Loop[];
  /** The innermost loop containing `b`. */
  loopFor(b: BasicBlock): Loop | undefined;
  /** Nesting depth of `b` (0 outside every loop). */
  depthOf(b: BasicBlock): number;
}

interface MutableLoop {
  header: BasicBlock;
  blockSet: Set<BasicBlock>;
  parent: MutableLoop | undefined;
  children: MutableLoop[];
}

export function computeLoopInfo(fn: IrFunction, dt: DomTree): LoopInfo {
  const predecessors = (b: BasicBlock): readonly BasicBlock[] => dt.cfgPredecessors(b);
  const names = localNames(fn);
  const order = new Map<BasicBlock, number>();
  fn.blocks.forEach((b, i) => order.set(b, i));
  // Headers in post-order of the dominator tree's RPO reversed: inner headers come later in RPO,
  // so processing RPO backwards discovers inner loops first.
  const found: MutableLoop[] = [];
  for (const header of [...dt.order].reverse()) {
    const backEdgeSources = predecessors(header).filter((p) => dt.isReachable(p) && dt.dominates(header, p));
    if (backEdgeSources.length === 0) continue;
    const blockSet = new Set<BasicBlock>([header]);
    const work = [...backEdgeSources];
    while (work.length > 0) {
      const b = work.pop()!;
      if (blockSet.has(b)) continue;
      blockSet.add(b);
      for (const p of predecessors(b)) if (dt.isReachable(p) && !blockSet.has(p)) work.push(p);
    }
    found.push({ header, blockSet, parent: undefined, children: [] });
  }
  // Nesting: the parent is the smallest other loop containing the header.
  for (const l of found) {
    let best: MutableLoop | undefined;
    for (const o of found) {
      if (o === l || !o.blockSet.has(l.header) || o.blockSet.size <= l.blockSet.size) continue;
      if (!best || o.blockSet.size < best.blockSet.size) best = o;
    }
    l.parent = best;
    if (best) best.children.push(l);
  }
  const byHeaderOrder = (a: MutableLoop, b: MutableLoop): number => order.get(a.header)! - order.get(b.header)!;
  const innermost = new Map<BasicBlock, Loop>();
  const all: Loop[] = [];
  const build = (m: MutableLoop, parent: Loop | undefined, depth: number): Loop => {
    const blocks = [m.header, ...fn.blocks.filter((b) => b !== m.header && m.blockSet.has(b))];
    const latches = predecessors(m.header).filter((p) => m.blockSet.has(p));
    const outsidePreds = predecessors(m.header).filter((p) => !m.blockSet.has(p));
    const pre = outsidePreds.length === 1 && successors(outsidePreds[0]!).length === 1 ? outsidePreds[0] : undefined;
    const exiting = blocks.filter((b) => successors(b).some((s) => !m.blockSet.has(s)));
    const exitSet = new Set<BasicBlock>();
    for (const b of exiting) for (const s of successors(b)) if (!m.blockSet.has(s)) exitSet.add(s);
    const children: Loop[] = [];
    const loop: Loop = {
      id: all.length,
      depth,
      headerName: names.get(m.header)!,
      header: m.header,
      blocks,
      blockSet: m.blockSet,
      parent,
      children,
      latches,
      latch: latches.length === 1 ? latches[0] : undefined,
      preheader: pre,
      exitingBlocks: exiting,
      exitBlocks: fn.blocks.filter((b) => exitSet.has(b)),
      contains(other: ScevLoop): boolean {
        return other === this || (other as Loop).blockSet !== undefined && m.blockSet.has((other as Loop).header);
      },
      containsBlock: (b) => m.blockSet.has(b),
    };
    all.push(loop);
    for (const b of m.blockSet) innermost.set(b, loop); // children overwrite below
    for (const c of m.children.sort(byHeaderOrder)) children.push(build(c, loop, depth + 1));
    return loop;
  };
  const topLevel = found.filter((l) => !l.parent).sort(byHeaderOrder).map((l) => build(l, undefined, 1));
  return {
    topLevel,
    all,
    loopFor: (b) => innermost.get(b),
    depthOf: (b) => innermost.get(b)?.depth ?? 0,
  };
}

export const loopAnalysis: AnalysisKey<LoopInfo> = {
  name: 'loops',
  compute: (fn: IrFunction, am: FunctionAnalysisManager) => computeLoopInfo(fn, am.get(dominatorTreeAnalysis, fn)),
};

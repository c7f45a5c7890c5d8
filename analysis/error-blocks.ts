// Error blocks (Polly's ScopDetection::isErrorBlock, for what -O3 leaves of C++ library code):
// blocks from which the function can only end abnormally. A block is an error block when it
// ends in `unreachable` or `resume`, calls a `noreturn` function (abort, exit, __cxa_throw,
// std::__throw_*), or when every successor is an error block (the allocation and construction
// of an exception before its throw, a landing pad's clean-up before its resume).
//
// A SCoP may have edges into error blocks besides its exit: its model assumes they are never
// taken, and the run-time check proves that for the parameters at hand (ScopErrorEdge). The fast
// path leaves the error blocks out; when an edge could be taken the original code runs and
// reaches the error block in the same state and order as clang -O3's build.
import { type BasicBlock, type IrFunction, type Module, calledFunction, callAttributes, successors, terminator } from '../ir';
import type { AnalysisKey } from './analysis-manager';
import { type DomTree, computePostDominatorTreeWithout } from './dominators';
import { localNames } from './value-names';

function endsAbnormally(b: BasicBlock, module: Module): boolean {
  const t = terminator(b);
  if (t?.opcode === 'unreachable' || t?.opcode === 'resume') return true;
  return b.instructions.some((i) => (i.opcode === 'call' || i.opcode === 'invoke') && calledFunction(i) !== undefined && callAttributes(i, module).has('noreturn'));
}

/** The function's error blocks (never its entry block). */
export function findErrorBlocks(fn: IrFunction): Set<BasicBlock> {
  const out = new Set<BasicBlock>();
  const entry = fn.blocks[0];
  for (const b of fn.blocks) if (b !== entry && endsAbnormally(b, fn.parent)) out.add(b);
  // Least fixpoint: a cycle (a loop) never becomes an error block.
  for (let changed = true; changed;) {
    changed = false;
    for (const b of fn.blocks) {
      if (b === entry || out.has(b)) continue;
      const next = successors(b);
      if (next.length > 0 && next.every((s) => out.has(s))) {
        out.add(b);
        changed = true;
      }
    }
  }
  return out;
}

export interface ErrorBlocks {
  readonly blocks: ReadonlySet<BasicBlock>;
  /** Post-dominators over the CFG without error blocks: regions are built from it. */
  readonly postDominators: DomTree;
}

export const errorBlocksAnalysis: AnalysisKey<ErrorBlocks> = {
  name: 'error-blocks',
  compute: (fn) => {
    const blocks = findErrorBlocks(fn);
    return { blocks, postDominators: computePostDominatorTreeWithout(fn, blocks) };
  },
};

/** What an error block does, for the report: `throw`, `abort`, `resume`, or `unreachable`. */
export function errorBlockKind(b: BasicBlock, blocks: ReadonlySet<BasicBlock>, module: Module): string {
  const seen = new Set<BasicBlock>();
  const work = [b];
  const kinds = new Set<string>();
  while (work.length > 0) {
    const x = work.pop()!;
    if (seen.has(x)) continue;
    seen.add(x);
    for (const i of x.instructions) {
      if (i.opcode !== 'call' && i.opcode !== 'invoke') continue;
      const callee = calledFunction(i);
      if (callee && callAttributes(i, module).has('noreturn')) kinds.add(callee.name === '__cxa_throw' || callee.name.startsWith('_ZSt') ? 'throw' : callee.name);
    }
    for (const s of successors(x)) if (blocks.has(s)) work.push(s);
  }
  if (kinds.size === 0) kinds.add(terminator(b)?.opcode === 'resume' ? 'resume' : 'unreachable');
  return [...kinds].sort().join('/');
}

/** Every block the SCoP's error edges lead to: code that runs only on the original path. */
export function reachedErrorBlocks(scop: { readonly errorBlocks?: readonly { readonly block: BasicBlock }[] }): Set<BasicBlock> {
  const out = new Set<BasicBlock>();
  const work = (scop.errorBlocks ?? []).map((e) => e.block);
  while (work.length > 0) {
    const b = work.pop()!;
    if (out.has(b)) continue;
    out.add(b);
    work.push(...successors(b));
  }
  return out;
}

/** The SCoP's error edges for the report: `%18 (throw) from %14`. */
export function describeErrorEdges(scop: { readonly errorBlocks?: readonly { readonly from: BasicBlock; readonly block: BasicBlock }[] }, fn: IrFunction): string[] {
  if (!scop.errorBlocks?.length) return [];
  const names = localNames(fn);
  const blocks = findErrorBlocks(fn);
  const name = (b: BasicBlock): string => names.get(b) ?? '%?';
  return scop.errorBlocks.map((e) => `${name(e.block)} (${errorBlockKind(e.block, blocks, fn.parent)}) from ${name(e.from)}`);
}

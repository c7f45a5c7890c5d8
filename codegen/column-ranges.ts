// `--parallel` for an interchanged nest whose outer loop carries nothing (PolyBench gramschmidt):
// one range of that loop's iterations per thread, sized at run time.
//
// The interchange (transform/interchange.ts) runs a column walk's outer loop L innermost, so that
// opt vectorizes it along the rows; L carries nothing, but it is now the innermost loop of each
// walk, one column's work a run, too little for a team (gramschmidt: per k, `for (i) for (j > k)
// R[k][j] += Q[i][k] * A[i][j]`, then `for (i) for (j > k) A[i][j] -= Q[i][k] * R[k][j]`). Here
// the AST nodes that run L's statements (a run of siblings under L's enclosing loops) become one
// parallel loop whose iterations are L's counter values,
//
//   for (range = jmin; range <= jmax; range++)    the threads' share: [lo, hi], contiguous
//     for (i) for (j = max(init, lo); j <= min(upper, hi); j++) S(.., j, i)
//     ...
//
// of which each thread runs its static block [lo, hi] of L's values once: the walks as before,
// each j loop clipped to [lo, hi] (codegen/ast-to-ir.ts, `ParallelLoopHooks.clipped`). Under one
// thread the range is the whole of [jmin, jmax]: the same loops as without threads, at the cost
// of a call per run. isl's affine schedules cannot express blocks of `ceil(columns / threads)`
// (`blockOuterLoops` cuts constant blocks of 64, each row of a block a vector loop of its own
// with set-up and remainder: 27% more instructions on one thread).
//
// Why the values stay those of the original order: every statement instance of the run lies in
// one iteration of L's enclosing loops (their iterators are bound outside the run), and the run's
// instances with different values of L's counter touch no common location with one writing
// (L carries nothing: the model's `parallelLoops`; scalars the run writes get a slot per thread,
// codegen/parallel-loop.ts). Each thread runs its instances in the interchanged order, which is
// legal (checked by the interchange), and the ranges partition [jmin, jmax], which holds every
// clipped loop's iterations: each instance runs exactly once.
import type { AstExprTree, AstNodeTree } from 'isl-wasm';
import type { ScopLoop } from '../analysis/scop-detection-types';
import type { InterchangedNest } from '../transform/interchange';
import { mentions, parallelBound, statementCalls, visitLoops } from './ast-to-ir';

type ForNode = Extract<AstNodeTree, { kind: 'for' }>;

/** A parallel loop made by `rangeInterchangedNests`: its iterations are L's counter values. */
export interface ColumnRange {
  /** The interchanged nest's outer loop L. */
  readonly outer: ScopLoop;
  /** The statement dimension of L's counter (L.depth - 1). */
  readonly dim: number;
  /** The loops over L's counter inside the range, clipped to each thread's values. */
  readonly clipped: ReadonlySet<ForNode>;
}

/** The iterator of a range loop `k` of a fast path (no isl iterator is named so). */
const rangeIterator = (k: number): string => `tsopt.range${k}`;

/**
 * `ast` with each run of sibling nodes that runs only statements of one nest of `nests` (and can
 * be cut in ranges, `rangeOf`) under a range loop, and those loops. `nests`: the interchanged
 * nests whose outer loop carries nothing and is wanted on the threads; `skip`: the runs to leave
 * as they are, by their position among the runs that could be cut (a range loop that would run
 * serially must not exist: as a plain loop it would run its body once per value).
 */
export function rangeInterchangedNests(ast: AstNodeTree, nests: readonly InterchangedNest[], skip: ReadonlySet<number> = new Set()): { ast: AstNodeTree; ranges: Map<ForNode, ColumnRange> } {
  const ranges = new Map<ForNode, ColumnRange>();
  if (nests.length === 0) return { ast, ranges };
  // Runs that could be cut, in AST order (`skip` counts them).
  let found = 0;
  const nestOf = new Map(nests.flatMap((n) => n.statements.map((st) => [st.name, n] as const)));
  // The nest all calls under `node` belong to, if one.
  const onlyNest = (node: AstNodeTree): InterchangedNest | undefined => {
    const calls = statementCalls(node);
    const first = calls[0] ? nestOf.get(calls[0].name) : undefined;
    return first && calls.every((c) => nestOf.get(c.name) === first) ? first : undefined;
  };
  // The iterators of the loops around the node being rewritten.
  const bound: string[] = [];
  const rewriteChildren = (nodes: readonly AstNodeTree[]): AstNodeTree[] => {
    // isl nests sequences as blocks in blocks ([[[a, b], c], d]): one level of siblings.
    const children = nodes.flatMap(flatBlock);
    const out: AstNodeTree[] = [];
    for (let k = 0; k < children.length;) {
      const nest = onlyNest(children[k]!);
      let end = k + 1;
      if (nest) while (end < children.length && onlyNest(children[end]!) === nest) end++;
      const run = children.slice(k, end);
      const range = nest ? rangeOf(run, nest.outer, bound, found) : undefined;
      if (range) found++;
      if (range && nest && !skip.has(found - 1)) {
        ranges.set(range.loop, { outer: nest.outer, dim: nest.outer.depth - 1, clipped: range.clipped });
        out.push(range.loop);
      } else if (range || nest) out.push(...run);
      else out.push(...run.map(rewrite));
      k = end;
    }
    return out;
  };
  const rewrite = (node: AstNodeTree): AstNodeTree => {
    switch (node.kind) {
      case 'block':
        return { ...node, children: rewriteChildren(node.children) };
      case 'for': {
        bound.push(node.iterator.kind === 'id' ? node.iterator.name : '');
        const body = rewriteChildren([node.body]);
        bound.pop();
        return { ...node, body: body.length === 1 ? body[0]! : { kind: 'block', children: body } };
      }
      case 'if':
        return { ...node, then: rewrite(node.then), ...(node.else ? { else: rewrite(node.else) } : {}) };
      case 'mark':
        return { ...node, node: rewrite(node.node) };
      case 'user':
        return node;
    }
  };
  const out = rewrite(ast);
  return { ast: ranges.size > 0 ? out : ast, ranges };
}

/**
 * The range loop around `run` (AST nodes running only statements of the nest whose outer loop is
 * `outer`), or undefined where the run cannot be cut by L's counter: each call's argument for L
 * must be the iterator of a loop inside the run whose every call passes it there (the loops to
 * clip), of unit step, with bounds and the calls' outer arguments free of the run's iterators,
 * and the loops `around` the run may bind only L's enclosing loops' counters.
 */
function rangeOf(run: readonly AstNodeTree[], outer: ScopLoop, around: readonly string[], index: number): { loop: ForNode; clipped: Set<ForNode> } | undefined {
  const dim = outer.depth - 1;
  const inner = new Set<string>();
  const loops: ForNode[] = [];
  for (const node of run) {
    visitLoops(node, (l) => {
      loops.push(l);
      if (l.iterator.kind === 'id') inner.add(l.iterator.name);
      return true;
    });
  }
  const freeOfRun = (e: AstExprTree): boolean => ![...inner].some((name) => mentions(e, name));
  const clipped = new Set<ForNode>();
  for (const l of loops) {
    const it = l.iterator.kind === 'id' ? l.iterator.name : undefined;
    const calls = statementCalls(l.body);
    const passed = calls.filter((c) => c.args[dim]?.kind === 'id' && (c.args[dim] as { name: string }).name === it);
    if (passed.length === 0) continue;
    // Every call under a clipped loop takes its counter as L's (no clipped loop inside another).
    if (passed.length !== calls.length) return undefined;
    const bound = parallelBound(l);
    if (!bound || l.inc.kind !== 'int' || l.inc.value !== 1n || !freeOfRun(l.init) || !freeOfRun(bound.upper)) return undefined;
    clipped.add(l);
  }
  if (clipped.size === 0) return undefined;
  // Every call sits in a clipped loop, with the values of L's enclosing loops bound outside the run.
  for (const node of run) {
    for (const call of statementCalls(node)) {
      const arg = call.args[dim];
      if (arg?.kind !== 'id' || !inner.has(arg.name)) return undefined;
      if (call.args.slice(0, dim).some((a) => !freeOfRun(a))) return undefined;
      // The loops around the run bind L's enclosing loops only (not a walk down the rows around a column loop).
      if (call.args.slice(dim + 1).some((a) => around.some((name) => mentions(a, name)))) return undefined;
    }
  }
  const inits: AstExprTree[] = [];
  const lasts: AstExprTree[] = [];
  const add = (list: AstExprTree[], e: AstExprTree): void => {
    if (!list.some((x) => sameExpr(x, e))) list.push(e);
  };
  for (const l of clipped) {
    const { upper, strict } = parallelBound(l)!;
    add(inits, l.init);
    add(lasts, strict ? { kind: 'op', op: 'sub', args: [upper, { kind: 'int', value: 1n }] } : upper);
  }
  const iterator: AstExprTree = { kind: 'id', name: rangeIterator(index) };
  const loop: ForNode = {
    kind: 'for', iterator, degenerate: false, inc: { kind: 'int', value: 1n },
    init: inits.length === 1 ? inits[0]! : { kind: 'op', op: 'min', args: inits },
    cond: { kind: 'op', op: 'le', args: [iterator, lasts.length === 1 ? lasts[0]! : { kind: 'op', op: 'max', args: lasts }] },
    body: run.length === 1 ? run[0]! : { kind: 'block', children: run },
  };
  return { loop, clipped };
}

function flatBlock(node: AstNodeTree): AstNodeTree[] {
  return node.kind === 'block' ? node.children.flatMap(flatBlock) : [node];
}

function sameExpr(a: AstExprTree, b: AstExprTree): boolean {
  if (a.kind === 'id' && b.kind === 'id') return a.name === b.name;
  if (a.kind === 'int' && b.kind === 'int') return a.value === b.value;
  if (a.kind === 'op' && b.kind === 'op') return a.op === b.op && a.args.length === b.args.length && a.args.every((x, k) => sameExpr(x, b.args[k]!));
  return false;
}

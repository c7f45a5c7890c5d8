// The matmul path's micro-kernel i loop unrolled on the AST tree (transform/matmul.ts,
// `unrollMark`), where isl's own unrolling would give the same copies at about three times the
// isl operations (gemm's AST 336K against 134K; issue 16).
//
// isl unrolls a loop by generating its body once per value of the counter, each copy simplified
// on its own: the counter becomes that value, sums and constants fold (`c4 + c7` becomes `c4`,
// `c4 + 1`, ...; `c7 + 672` becomes `673`), and an inner loop left with one iteration is no loop
// (its counter becomes that iteration). transform/matmul.ts puts the mark only where the copies
// need nothing more: the loop runs a constant range (every micro-tile is full along i) and no
// inner bound depends on it (the statement's points form a box), so isl's context has nothing
// to simplify a copy with beyond its counter's value.
import type { AstExprTree, AstNodeTree } from 'isl-wasm';

/** `tree` with every loop under a mark named `mark` unrolled in place (the mark dropped). */
export function unrollMarked(tree: AstNodeTree, mark: string): AstNodeTree {
  switch (tree.kind) {
    case 'mark': {
      const inner = unrollMarked(tree.node, mark);
      if (tree.mark !== mark) return { ...tree, node: inner };
      // isl makes no loop of a single iteration: nothing to unroll then.
      if (inner.kind !== 'for') return inner;
      const counter = idName(inner.iterator);
      const last = lastValue(inner.cond, counter);
      if (inner.init.kind !== 'int' || last === undefined || !isOne(inner.inc)) {
        throw new Error(`unrolling: the loop of ${counter} does not run a constant range`);
      }
      const copies: AstNodeTree[] = [];
      for (let v = inner.init.value; v <= last; v++) copies.push(substituteNode(inner.body, counter, v));
      return block(copies);
    }
    case 'for':
      return { ...tree, body: unrollMarked(tree.body, mark) };
    case 'if':
      return { ...tree, then: unrollMarked(tree.then, mark), ...(tree.else ? { else: unrollMarked(tree.else, mark) } : {}) };
    case 'block':
      return { kind: 'block', children: tree.children.map((c) => unrollMarked(c, mark)) };
    case 'user':
      return tree;
  }
}

function idName(e: AstExprTree): string {
  if (e.kind !== 'id') throw new Error('unrolling: a loop counter that is not an identifier');
  return e.name;
}

function isOne(e: AstExprTree): boolean {
  return e.kind === 'int' && e.value === 1n;
}

/** The counter's last value when `cond` is `counter <= n` or `counter < n + 1` for a constant n. */
function lastValue(cond: AstExprTree, counter: string): bigint | undefined {
  if (cond.kind !== 'op' || cond.args.length !== 2) return undefined;
  const [a, b] = cond.args as [AstExprTree, AstExprTree];
  if (a.kind !== 'id' || a.name !== counter || b.kind !== 'int') return undefined;
  if (cond.op === 'le') return b.value;
  if (cond.op === 'lt') return b.value - 1n;
  return undefined;
}

/** `children` as one node, nested blocks flattened (isl's blocks hold no blocks). */
function block(children: readonly AstNodeTree[]): AstNodeTree {
  const flat = children.flatMap((c) => (c.kind === 'block' ? c.children : [c]));
  return flat.length === 1 ? flat[0]! : { kind: 'block', children: flat };
}

/** The copy of `node` for `counter` = `value`, as isl simplifies it. */
function substituteNode(node: AstNodeTree, counter: string, value: bigint): AstNodeTree {
  switch (node.kind) {
    case 'user':
      return { kind: 'user', expr: substitute(node.expr, counter, value) };
    case 'mark':
      return { kind: 'mark', mark: node.mark, node: substituteNode(node.node, counter, value) };
    case 'block':
      return block(node.children.map((c) => substituteNode(c, counter, value)));
    case 'if':
      return {
        kind: 'if', cond: substitute(node.cond, counter, value), then: substituteNode(node.then, counter, value),
        ...(node.else ? { else: substituteNode(node.else, counter, value) } : {}),
      };
    case 'for': {
      const init = substitute(node.init, counter, value);
      const cond = substitute(node.cond, counter, value);
      const body = substituteNode(node.body, counter, value);
      const inner = idName(node.iterator);
      const last = lastValue(cond, inner);
      // One iteration: isl writes the body alone, the inner counter at its value; none: nothing.
      if (init.kind === 'int' && last !== undefined && isOne(node.inc)) {
        if (init.value === last) return substituteNode(body, inner, init.value);
        if (init.value > last) return block([]);
      }
      return { ...node, init, cond, body };
    }
  }
}

/** `e` with `counter` = `value`, folded where it changed; `e` itself where `counter` does not occur. */
function substitute(e: AstExprTree, counter: string, value: bigint): AstExprTree {
  if (e.kind === 'id') return e.name === counter ? { kind: 'int', value } : e;
  if (e.kind === 'int') return e;
  let changed = false;
  const args = e.args.map((a) => {
    const b = substitute(a, counter, value);
    if (b !== a) changed = true;
    return b;
  });
  return changed ? fold({ kind: 'op', op: e.op, args }) : e;
}

/** An operation whose operand became a constant, written as isl writes it. */
function fold(e: AstExprTree & { kind: 'op' }): AstExprTree {
  const ints = e.args.every((a) => a.kind === 'int') ? e.args.map((a) => (a as { value: bigint }).value) : undefined;
  if (ints) {
    switch (e.op) {
      case 'add':
        return { kind: 'int', value: ints[0]! + ints[1]! };
      case 'sub':
        return { kind: 'int', value: ints[0]! - ints[1]! };
      case 'mul':
        return { kind: 'int', value: ints[0]! * ints[1]! };
      case 'minus':
        return { kind: 'int', value: -ints[0]! };
      case 'min':
        return { kind: 'int', value: ints.reduce((p, q) => (q < p ? q : p)) };
      case 'max':
        return { kind: 'int', value: ints.reduce((p, q) => (q > p ? q : p)) };
      default:
        break;
    }
  }
  if (e.op === 'add' || e.op === 'sub' || e.op === 'minus') return sum(e);
  return e;
}

/**
 * A sum as isl writes an affine expression: its terms in their order, the first negated by
 * `minus`, the others added or subtracted, the constant last (added, or subtracted when negative).
 */
function sum(e: AstExprTree): AstExprTree {
  const terms: { sign: 1 | -1; term: AstExprTree }[] = [];
  let constant = 0n;
  const collect = (x: AstExprTree, sign: 1 | -1): void => {
    if (x.kind === 'int') constant += sign === 1 ? x.value : -x.value;
    else if (x.kind === 'op' && x.op === 'add') {
      collect(x.args[0]!, sign);
      collect(x.args[1]!, sign);
    } else if (x.kind === 'op' && x.op === 'sub') {
      collect(x.args[0]!, sign);
      collect(x.args[1]!, sign === 1 ? -1 : 1);
    } else if (x.kind === 'op' && x.op === 'minus') collect(x.args[0]!, sign === 1 ? -1 : 1);
    else terms.push({ sign, term: x });
  };
  collect(e, 1);
  if (terms.length === 0) return { kind: 'int', value: constant };
  const [first, ...rest] = terms as [(typeof terms)[number], ...typeof terms];
  let out: AstExprTree = first.sign === 1 ? first.term : { kind: 'op', op: 'minus', args: [first.term] };
  for (const t of rest) out = { kind: 'op', op: t.sign === 1 ? 'add' : 'sub', args: [out, t.term] };
  if (constant > 0n) out = { kind: 'op', op: 'add', args: [out, { kind: 'int', value: constant }] };
  if (constant < 0n) out = { kind: 'op', op: 'sub', args: [out, { kind: 'int', value: -constant }] };
  return out;
}

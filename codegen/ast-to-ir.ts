// isl AST → IR control flow (Polly's IslNodeBuilder): `for` nodes become top-tested loops
// with an i64 induction variable, `if` nodes branches, `user` nodes statement instances
// emitted by the caller. Loops are left for opt's loop-rotate, as Polly leaves them.
import type { AstExprTree, AstNodeTree } from 'isl-wasm';
import { InstFlag, IrBuilder, addIncoming, createBlock, insertBlockAfter, type BasicBlock, type Instruction, type Value } from '../ir';
import { AstExprEmitter } from './ast-expr';

/** A loop the generator made, handed to `onLoop` once its latch exists. */
export interface GeneratedLoop {
  readonly node: Extract<AstNodeTree, { kind: 'for' }>;
  readonly header: BasicBlock;
  /** The back edge `br label %header`: where `!llvm.loop` goes. */
  readonly latchBranch: Instruction;
  /** No `for` node below this one. */
  readonly innermost: boolean;
  /** `for` nodes around this one (0: outermost loop of the AST). */
  readonly depth: number;
}

export interface AstCodegenHooks {
  /** Parameters (and anything else that is not a loop iterator) as i64 values. */
  parameter(name: string): Value;
  /** Emits statement `name` for the iteration vector `args` (i64 values) at the builder's position. */
  statement(name: string, args: readonly Value[], b: IrBuilder, enclosing: readonly Extract<AstNodeTree, { kind: 'for' }>[]): void;
  /** Called for every generated loop after its body. */
  loop?(loop: GeneratedLoop): void;
}

export class AstToIr {
  private readonly iterators = new Map<string, Value>();
  private readonly enclosing: Extract<AstNodeTree, { kind: 'for' }>[] = [];
  /** Blocks made, in order (for undoing a failed generation). */
  readonly blocks: BasicBlock[] = [];
  private last: BasicBlock;

  constructor(readonly b: IrBuilder, readonly hooks: AstCodegenHooks, private readonly prefix: string) {
    this.last = b.insertBlock!;
  }

  /** A new block of the generated code, after the last one made (statements use it for conditional code). */
  newBlock(name: string): BasicBlock {
    const block = insertBlockAfter(this.last, createBlock(`${this.prefix}.${name}`));
    this.last = block;
    this.blocks.push(block);
    return block;
  }

  private exprs(): AstExprEmitter {
    return new AstExprEmitter(this.b, 64, (name) => this.iterators.get(name) ?? this.hooks.parameter(name));
  }

  /** Emits `node` from the builder's (open) block; leaves the builder at the (open) block where control continues. */
  generate(node: AstNodeTree): void {
    const b = this.b;
    switch (node.kind) {
      case 'block':
        for (const child of node.children) this.generate(child);
        return;
      case 'mark':
        this.generate(node.node);
        return;
      case 'user': {
        const call = node.expr;
        if (call.kind !== 'op' || call.op !== 'call' || call.args[0]?.kind !== 'id') throw new Error('a user node that is not a statement call');
        const e = this.exprs();
        const args = call.args.slice(1).map((a) => e.value(a));
        this.hooks.statement(call.args[0].name, args, b, this.enclosing);
        return;
      }
      case 'if': {
        const cond = this.exprs().cond(node.cond);
        const thenBlock = this.newBlock('then');
        const elseBlock = node.else ? this.newBlock('else') : undefined;
        const merge = this.newBlock('merge');
        b.condBr(cond, thenBlock, elseBlock ?? merge);
        b.positionAtEnd(thenBlock);
        this.generate(node.then);
        b.br(merge);
        if (node.else && elseBlock) {
          b.positionAtEnd(elseBlock);
          this.generate(node.else);
          b.br(merge);
        }
        b.positionAtEnd(merge);
        return;
      }
      case 'for': {
        const iter = node.iterator;
        if (iter.kind !== 'id') throw new Error('a loop iterator that is not an identifier');
        const pre = b.insertBlock!;
        const init = this.exprs().value(node.init);
        const header = this.newBlock('header');
        const body = this.newBlock('body');
        b.br(header);
        b.positionAtEnd(header);
        const iv = b.phi(init.type, iter.name, [[init, pre]]);
        this.iterators.set(iter.name, iv);
        const exit = this.newBlock('exit');
        b.condBr(this.exprs().cond(node.cond), body, exit);
        b.positionAtEnd(body);
        this.enclosing.push(node);
        this.generate(node.body);
        this.enclosing.pop();
        // nsw, as clang gives its own counters: without it SCEV cannot count the iterations of a
        // loop that exits on `c <= bound` (it might wrap), and LLVM's loop vectorizer refuses
        // the loop (syrk's `j <= i`: the original vectorized, the fast path not). The counter
        // stays within the iteration domain plus one step, which the AST's i64 arithmetic
        // already assumes (the check bounds the parameters).
        const next = b.add(iv, this.exprs().value(node.inc), `${iter.name}.next`, InstFlag.NoSignedWrap);
        const latch = b.insertBlock!;
        const latchBranch = b.br(header);
        addIncoming(iv, next, latch);
        this.iterators.delete(iter.name);
        b.positionAtEnd(exit);
        this.hooks.loop?.({ node, header, latchBranch, innermost: !containsFor(node.body), depth: this.enclosing.length });
        return;
      }
    }
  }
}

export function containsFor(node: AstNodeTree): boolean {
  switch (node.kind) {
    case 'for':
      return true;
    case 'block':
      return node.children.some(containsFor);
    case 'if':
      return containsFor(node.then) || (node.else !== undefined && containsFor(node.else));
    case 'mark':
      return containsFor(node.node);
    case 'user':
      return false;
  }
}

/** The statement calls below `node`: name and argument expressions. */
export function statementCalls(node: AstNodeTree, out: { name: string; args: readonly AstExprTree[] }[] = []): { name: string; args: readonly AstExprTree[] }[] {
  switch (node.kind) {
    case 'for':
      statementCalls(node.body, out);
      break;
    case 'block':
      node.children.forEach((c) => statementCalls(c, out));
      break;
    case 'if':
      statementCalls(node.then, out);
      if (node.else) statementCalls(node.else, out);
      break;
    case 'mark':
      statementCalls(node.node, out);
      break;
    case 'user':
      if (node.expr.kind === 'op' && node.expr.args[0]?.kind === 'id') out.push({ name: node.expr.args[0].name, args: node.expr.args.slice(1) });
      break;
  }
  return out;
}

// Control-flow and instruction-shape helpers the analyses use.
import type { BasicBlock, IrFunction, Instruction, Opcode, Value } from './types';

const terminatorOpcodes: ReadonlySet<Opcode> = new Set<Opcode>([
  'ret', 'br', 'switch', 'indirectbr', 'invoke', 'resume', 'unreachable',
  'cleanupret', 'catchret', 'catchswitch', 'callbr',
]);

export function isTerminator(inst: Instruction): boolean {
  return terminatorOpcodes.has(inst.opcode);
}

/** The block's terminator, or undefined while the block is being built. */
export function terminator(block: BasicBlock): Instruction | undefined {
  const last = block.instructions[block.instructions.length - 1];
  return last && isTerminator(last) ? last : undefined;
}

/** Successor blocks in LLVM's order (duplicates kept, e.g. a switch with two cases to one block). */
export function successors(block: BasicBlock): BasicBlock[] {
  const t = terminator(block);
  if (!t) return [];
  const out: BasicBlock[] = [];
  for (const op of t.operands) if (op.kind === 'block') out.push(op);
  return out;
}

/**
 * Distinct predecessor blocks (blocks whose terminator names `block`), in function block
 * order. O(uses of the block), plus O(blocks) when there are several predecessors.
 */
export function predecessors(block: BasicBlock): BasicBlock[] {
  const seen = new Set<BasicBlock>();
  for (const use of block.uses) {
    const u = use.user;
    if (u.kind === 'instruction' && u.parent && isTerminator(u)) seen.add(u.parent);
  }
  const fn = block.parent;
  if (!fn || seen.size < 2) return [...seen];
  return fn.blocks.filter((b) => seen.has(b));
}

/**
 * Predecessors of every block of `fn` at once, in O(edges): each list is distinct and in
 * function block order (the same order `predecessors` gives). Use this for whole-function
 * analyses instead of calling `predecessors` per block.
 */
export function predecessorMap(fn: IrFunction): Map<BasicBlock, BasicBlock[]> {
  const preds = new Map<BasicBlock, BasicBlock[]>();
  for (const b of fn.blocks) preds.set(b, []);
  for (const b of fn.blocks) {
    for (const s of successors(b)) {
      const list = preds.get(s);
      if (list && list[list.length - 1] !== b) list.push(b);
    }
  }
  return preds;
}

export function entryBlock(fn: IrFunction): BasicBlock | undefined {
  return fn.blocks[0];
}

/** The phi instructions at the top of `block`. */
export function phis(block: BasicBlock): Instruction[] {
  const out: Instruction[] = [];
  for (const inst of block.instructions) {
    if (inst.opcode !== 'phi') break;
    out.push(inst);
  }
  return out;
}

/** The first instruction that is not a phi (or landingpad / EH pad), where new code may go. */
export function firstInsertionIndex(block: BasicBlock): number {
  let i = 0;
  const insts = block.instructions;
  while (i < insts.length && ['phi', 'landingpad', 'catchpad', 'cleanuppad', 'catchswitch'].includes(insts[i]!.opcode)) i++;
  return i;
}

/** The incoming value of `phi` for `block`, or undefined. */
export function incomingValueFor(phi: Instruction, block: BasicBlock): Value | undefined {
  const i = phi.incomingBlocks!.indexOf(block);
  return i < 0 ? undefined : phi.operands[i];
}

export function isCall(inst: Instruction): boolean {
  return inst.opcode === 'call' || inst.opcode === 'invoke' || inst.opcode === 'callbr';
}

/** The callee operand of call/invoke/callbr (a function, a pointer value or inline asm). */
export function calledValue(inst: Instruction): Value {
  if (!inst.call) throw new TypeError(`${inst.opcode} is not a call`);
  return inst.operands[0]!;
}

/** The directly called function, if the callee is one. */
export function calledFunction(inst: Instruction): IrFunction | undefined {
  const c = inst.call ? inst.operands[0] : undefined;
  return c && c.kind === 'function' ? c : undefined;
}

/** The argument operands of a call/invoke/callbr. */
export function callArgs(inst: Instruction): Value[] {
  if (!inst.call) throw new TypeError(`${inst.opcode} is not a call`);
  return inst.operands.slice(1, 1 + inst.call.argAttrs.length);
}

/** Index of the instruction within its block (O(block size)). */
export function indexInBlock(inst: Instruction): number {
  const b = inst.parent;
  if (!b) throw new Error('instruction is not in a block');
  const i = b.instructions.indexOf(inst);
  if (i < 0) throw new Error('instruction not found in its parent block');
  return i;
}

/** All instructions of a function in block order. */
export function* instructionsOf(fn: IrFunction): Generator<Instruction> {
  for (const b of fn.blocks) yield* b.instructions;
}

// Editing functions: insert, move and erase instructions and blocks, split blocks, edit phis.
import { isTerminator, successors, terminator } from './cfg';
import { createBlock, createInstruction } from './nodes';
import { voidType } from './type-ops';
import type { BasicBlock, Instruction, IrFunction, Value } from './types';
import { appendOperand, dropAllOperands, removeOperands, replacePhiIncomingBlock, setOperand } from './uses';

/** Inserts a detached instruction into `block` at `index` (default: the end). */
export function insertInstruction(block: BasicBlock, inst: Instruction, index = block.instructions.length): Instruction {
  if (inst.parent) throw new Error('insertInstruction: instruction is already in a block');
  inst.parent = block;
  if (index === block.instructions.length) block.instructions.push(inst);
  else block.instructions.splice(index, 0, inst);
  return inst;
}

/** Inserts a detached instruction right before `ref`. */
export function insertBefore(ref: Instruction, inst: Instruction): Instruction {
  const b = ref.parent;
  if (!b) throw new Error('insertBefore: reference instruction is not in a block');
  return insertInstruction(b, inst, b.instructions.indexOf(ref));
}

/** Inserts a detached instruction right after `ref`. */
export function insertAfter(ref: Instruction, inst: Instruction): Instruction {
  const b = ref.parent;
  if (!b) throw new Error('insertAfter: reference instruction is not in a block');
  return insertInstruction(b, inst, b.instructions.indexOf(ref) + 1);
}

/** Takes an instruction out of its block, keeping its operands and uses (to move it). */
export function removeFromBlock(inst: Instruction): Instruction {
  const b = inst.parent;
  if (!b) return inst;
  const i = b.instructions.indexOf(inst);
  if (i >= 0) b.instructions.splice(i, 1);
  inst.parent = undefined;
  return inst;
}

/** Moves an instruction (in a block or detached) to just before `ref`. */
export function moveBefore(inst: Instruction, ref: Instruction): void {
  removeFromBlock(inst);
  insertBefore(ref, inst);
}

/** Moves an instruction to the end of `block` (before nothing: callers keep the terminator last). */
export function moveToEnd(inst: Instruction, block: BasicBlock): void {
  removeFromBlock(inst);
  insertInstruction(block, inst);
}

/**
 * Deletes an instruction: out of its block, operands dropped. It must have no uses left
 * (replace them first, e.g. `replaceAllUsesWith(inst, poison(inst.type))`).
 */
export function eraseInstruction(inst: Instruction): void {
  if (inst.uses.length > 0) throw new Error(`eraseInstruction: ${inst.opcode} still has ${inst.uses.length} uses`);
  removeFromBlock(inst);
  dropAllOperands(inst);
}

/**
 * Deletes many instructions at once (O(size of the blocks involved), unlike erasing one by
 * one). Uses among the erased instructions are fine; uses from elsewhere are not.
 */
export function eraseInstructions(insts: Iterable<Instruction>): void {
  const doomed = new Set(insts);
  for (const inst of doomed) {
    for (const use of inst.uses) {
      if (!doomed.has(use.user as Instruction)) {
        throw new Error(`eraseInstructions: ${inst.opcode} is still used outside the erased set`);
      }
    }
  }
  const blocks = new Set<BasicBlock>();
  for (const inst of doomed) {
    dropAllOperands(inst);
    if (inst.parent) blocks.add(inst.parent);
  }
  for (const b of blocks) b.instructions = b.instructions.filter((i) => !doomed.has(i));
  for (const inst of doomed) inst.parent = undefined;
}

/** Adds a detached block to `fn` at `index` (default: the end). */
export function insertBlock(fn: IrFunction, block: BasicBlock, index = fn.blocks.length): BasicBlock {
  if (block.parent) throw new Error('insertBlock: block is already in a function');
  block.parent = fn;
  fn.isDeclaration = false;
  if (index === fn.blocks.length) fn.blocks.push(block);
  else fn.blocks.splice(index, 0, block);
  return block;
}

/** Adds a detached block right after `ref` in ref's function. */
export function insertBlockAfter(ref: BasicBlock, block: BasicBlock): BasicBlock {
  const fn = ref.parent;
  if (!fn) throw new Error('insertBlockAfter: reference block is not in a function');
  return insertBlock(fn, block, fn.blocks.indexOf(ref) + 1);
}

/**
 * Deletes a block and its instructions. Nothing may use the block or its instructions from
 * outside it (branches to it, phis naming it as incoming block must be fixed first: see
 * `removePhiIncoming`).
 */
export function eraseBlock(block: BasicBlock): void {
  for (const inst of block.instructions) dropAllOperands(inst);
  for (const inst of block.instructions) {
    if (inst.uses.length) throw new Error(`eraseBlock: a value of the block is still used (${inst.opcode})`);
    inst.parent = undefined;
  }
  if (block.uses.length) throw new Error('eraseBlock: the block is still a branch target');
  block.instructions = [];
  const fn = block.parent;
  if (fn) fn.blocks.splice(fn.blocks.indexOf(block), 1);
  block.parent = undefined;
}

/** Adds `[value, block]` to a phi. */
export function addIncoming(phi: Instruction, value: Value, block: BasicBlock): void {
  if (phi.opcode !== 'phi') throw new TypeError('addIncoming: not a phi');
  appendOperand(phi, value);
  phi.incomingBlocks!.push(block);
}

/** Removes the incoming entries of `pred` from every phi of `block`. */
export function removePhiIncoming(block: BasicBlock, pred: BasicBlock): void {
  for (const inst of block.instructions) {
    if (inst.opcode !== 'phi') break;
    const blocks = inst.incomingBlocks!;
    for (let i = blocks.length - 1; i >= 0; i--) {
      if (blocks[i] === pred) {
        removeOperands(inst, i, 1);
        blocks.splice(i, 1);
      }
    }
  }
}

/**
 * Splits `block` before instruction index `index`: the instructions from there on move to a
 * new block placed right after it, `block` ends with `br label %new`, and the phis of the
 * moved terminator's successors now name the new block. Returns the new block.
 */
export function splitBlock(block: BasicBlock, index: number, name?: string): BasicBlock {
  const fn = block.parent;
  if (!fn) throw new Error('splitBlock: block is not in a function');
  if (index < 0 || index > block.instructions.length) throw new RangeError('splitBlock: index out of range');
  if (block.instructions[index]?.opcode === 'phi') throw new Error('splitBlock: cannot split before a phi');
  if (index === block.instructions.length && terminator(block)) {
    throw new Error('splitBlock: cannot split after the terminator');
  }
  const tail = createBlock(name);
  insertBlockAfter(block, tail);
  const moved = block.instructions.splice(index);
  for (const inst of moved) inst.parent = tail;
  tail.instructions = moved;
  for (const succ of new Set(successors(tail))) replacePhiIncomingBlock(succ, block, tail);
  insertInstruction(block, createInstruction('br', voidType, [tail]));
  return tail;
}

/** Splits before an instruction (see `splitBlock`). */
export function splitBlockBefore(inst: Instruction, name?: string): BasicBlock {
  const b = inst.parent;
  if (!b) throw new Error('splitBlockBefore: instruction is not in a block');
  return splitBlock(b, b.instructions.indexOf(inst), name);
}

/**
 * Inserts a new block on the edge `from -> to` (which must exist): `from` branches to it, it
 * branches to `to`, and `to`'s phis name it instead of `from`. Returns the new block.
 */
export function splitEdge(from: BasicBlock, to: BasicBlock, name?: string): BasicBlock {
  const t = terminator(from);
  if (!t || !isTerminator(t)) throw new Error('splitEdge: source block has no terminator');
  const mid = createBlock(name);
  insertBlockAfter(from, mid);
  insertInstruction(mid, createInstruction('br', voidType, [to]));
  let found = false;
  t.operands.forEach((op, i) => {
    if (op === to) {
      found = true;
      setOperand(t, i, mid);
    }
  });
  if (!found) throw new Error('splitEdge: no such edge');
  replacePhiIncomingBlock(to, from, mid);
  return mid;
}

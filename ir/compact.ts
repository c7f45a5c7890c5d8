// Exact-size arrays for a freshly parsed module.
//
// V8 grows an array's backing store to 17 slots on its first `push`, and never gives the room
// back when the array stays that short. The parser fills every use list, operand list and
// metadata list by pushing, and most hold one or two entries, so a parsed module spent about
// 150 bytes per such list where 20-40 are needed: most of the model's heap
// (bench/big-module.ts). `slice()` copies a list into a store of exactly its length. Only the
// parser calls these, on values nobody else holds yet, so replacing the arrays is safe; later
// edits (and forward references resolved later in the parse) grow them again as usual.
import type { BasicBlock, Constant, Instruction, IrFunction, Module, User, Value } from './types';

type Writable<T> = { -readonly [K in keyof T]: T[K] };

function exact<T>(list: T[]): T[] {
  return list.length === 0 ? [] : list.slice();
}

function compactUses(v: Value): void {
  (v as Writable<Value>).uses = exact(v.uses);
}

/** Compacts a user's operand lists, and the use lists of the constants among its operands. */
function compactOperands(user: User, seen: Set<Value>): void {
  const u = user as Writable<User>;
  u.operands = exact(user.operands);
  u.operandUses = exact(user.operandUses);
  for (const op of user.operands) {
    if (!isConstantLike(op) || seen.has(op)) continue;
    seen.add(op);
    compactUses(op);
    if ('operands' in op) compactOperands(op, seen);
  }
}

/** Values owned by no block or module list: constants and the metadata/asm operands of calls. */
function isConstantLike(v: Value): v is Constant | Extract<Value, { kind: 'metadata' | 'inline-asm' }> {
  switch (v.kind) {
    case 'instruction':
    case 'argument':
    case 'block':
    case 'function':
    case 'global':
    case 'alias':
      return false;
    default:
      return true;
  }
}

function compactInstruction(inst: Instruction, seen: Set<Value>): void {
  compactUses(inst);
  compactOperands(inst, seen);
  inst.metadata = exact(inst.metadata);
  if (inst.incomingBlocks) inst.incomingBlocks = exact(inst.incomingBlocks);
  if (inst.call) inst.call.argAttrs = exact(inst.call.argAttrs);
}

function compactBlock(block: BasicBlock, seen: Set<Value>): void {
  compactUses(block);
  block.instructions = exact(block.instructions);
  for (const inst of block.instructions) compactInstruction(inst, seen);
}

/** Compacts a function's body as soon as it is parsed, so the garbage never piles up. */
export function compactParsedBody(fn: IrFunction): void {
  const seen = new Set<Value>();
  fn.args = exact(fn.args);
  for (const a of fn.args) compactUses(a);
  fn.blocks = exact(fn.blocks);
  for (const b of fn.blocks) compactBlock(b, seen);
}

/** The lists outside function bodies, once the whole module is parsed (bodies: `compactParsedBody`). */
export function compactParsedModule(m: Module): void {
  const seen = new Set<Value>();
  for (const g of [...m.globals, ...m.aliases, ...m.functions]) {
    compactUses(g);
    compactOperands(g, seen);
    if (g.kind === 'function') g.metadata = exact(g.metadata);
  }
}

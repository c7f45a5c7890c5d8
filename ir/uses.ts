// Use lists: every operand slot of a user is a `Use` recorded on the used value.
// Adding and removing a use is O(1) (removal swaps with the last use of that value).
import type { BasicBlock, Use, User, Value } from './types';

function addUse(value: Value, use: Use): void {
  use.slot = value.uses.length;
  value.uses.push(use);
}

function removeUse(value: Value, use: Use): void {
  const list = value.uses;
  const last = list.pop()!;
  if (last !== use) {
    list[use.slot] = last;
    last.slot = use.slot;
  }
}

/** Appends `value` as a new operand of `user`. */
export function appendOperand(user: User, value: Value): void {
  const use: Use = { user, index: user.operands.length, slot: 0 };
  user.operands.push(value);
  user.operandUses.push(use);
  addUse(value, use);
}

/** Replaces operand `index` of `user` by `value`, updating both use lists. */
export function setOperand(user: User, index: number, value: Value): void {
  const old = user.operands[index];
  if (old === undefined) throw new RangeError(`setOperand: no operand ${index}`);
  if (old === value) return;
  const use = user.operandUses[index]!;
  removeUse(old, use);
  user.operands[index] = value;
  addUse(value, use);
}

/** Removes operands [start, start+count) of `user`, renumbering later operands. */
export function removeOperands(user: User, start: number, count = 1): void {
  for (let i = start; i < start + count; i++) removeUse(user.operands[i]!, user.operandUses[i]!);
  user.operands.splice(start, count);
  user.operandUses.splice(start, count);
  for (let i = start; i < user.operandUses.length; i++) user.operandUses[i]!.index = i;
}

/** Inserts `values` as operands of `user` before position `start`. */
export function insertOperands(user: User, start: number, values: readonly Value[]): void {
  const uses = values.map((v, k): Use => ({ user, index: start + k, slot: 0 }));
  user.operands.splice(start, 0, ...values);
  user.operandUses.splice(start, 0, ...uses);
  for (let i = start; i < user.operandUses.length; i++) user.operandUses[i]!.index = i;
  values.forEach((v, k) => addUse(v, uses[k]!));
}

/** Drops all operands of `user` (before deleting it), so the values it used no longer list it. */
export function dropAllOperands(user: User): void {
  for (let i = 0; i < user.operands.length; i++) removeUse(user.operands[i]!, user.operandUses[i]!);
  user.operands.length = 0;
  user.operandUses.length = 0;
}

/** The distinct users of `value`, in no particular order. */
export function users(value: Value): User[] {
  const seen = new Set<User>();
  for (const u of value.uses) seen.add(u.user);
  return [...seen];
}

export function hasUses(value: Value): boolean {
  return value.uses.length > 0;
}

/**
 * Replaces every use of `from` by `to` (including uses inside constant expressions and
 * metadata operands). As in LLVM, phi incoming blocks are not uses: when replacing a block,
 * fix the successors' phis with `replacePhiIncomingBlock`.
 */
export function replaceAllUsesWith(from: Value, to: Value): void {
  if (from === to) return;
  while (from.uses.length > 0) {
    const use = from.uses[from.uses.length - 1]!;
    setOperand(use.user, use.index, to);
  }
}

/**
 * Replaces the uses of `from` for which `pred(use)` holds by `to`. Typical: `replaceUsesWithIf(x, y, (u) => u.user !== y)` when `y` uses `x`.
 */
export function replaceUsesWithIf(from: Value, to: Value, pred: (use: Use) => boolean): void {
  if (from === to) return;
  for (const use of from.uses.slice()) if (pred(use)) setOperand(use.user, use.index, to);
}

/** In the phis of `block`, renames incoming block `from` to `to`. */
export function replacePhiIncomingBlock(block: BasicBlock, from: BasicBlock, to: BasicBlock): void {
  for (const inst of block.instructions) {
    if (inst.opcode !== 'phi') break;
    const blocks = inst.incomingBlocks!;
    for (let i = 0; i < blocks.length; i++) if (blocks[i] === from) blocks[i] = to;
  }
}

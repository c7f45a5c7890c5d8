// One store where every branch into a join stores to the same address: `if (c) a[i] += x; else if
// (d) a[i] += y; else a[i] += z;` (TSVC's s441) ends each branch with its own store to a[i]. opt-14's
// vectorizer if-converts those into one masked store per branch, and each branch's masked store is
// read back by the next branch's load of a[i] in the same vector iteration: a store forwarding
// that fails for masked stores, so the loop runs several times slower than with one store of the
// selected value. LLVM's own merge (mldst-motion) takes joins of two branches only.
//
// The stores are replaced by a phi of the stored values at the top of the join and one store
// there. Between each removed store and the join nothing runs but its block's unconditional branch,
// so every path stores the same value to the same address as before, only later by that branch:
// the program's memory is the same at every point any other instruction can see it.
import type { DomTree } from '../analysis/dominators';
import { IrBuilder } from '../ir/builder';
import { predecessors, terminator } from '../ir/cfg';
import { eraseInstruction } from '../ir/edit';
import { typesEqual } from '../ir/type-ops';
import { hasUses } from '../ir/uses';
import { InstFlag, type BasicBlock, type Instruction, type IrFunction, type MetadataAttachment, type Value } from '../ir/types';

/** Opcodes that read or write memory, or may (any call). */
const MEMORY = new Set(['load', 'store', 'call', 'invoke', 'callbr', 'fence', 'atomicrmw', 'cmpxchg', 'va_arg']);

/** The store `block` ends with (only instructions that touch no memory between it and the branch), if it ends in `br label %join`. */
function lastStore(block: BasicBlock, join: BasicBlock): Instruction | undefined {
  const t = terminator(block);
  if (!t || t.opcode !== 'br' || t.operands.length !== 1 || t.operands[0] !== join) return undefined;
  for (let k = block.instructions.length - 2; k >= 0; k--) {
    const inst = block.instructions[k]!;
    if (!MEMORY.has(inst.opcode)) continue;
    if (inst.opcode !== 'store' || inst.atomic || (inst.flags & InstFlag.Volatile) !== 0) return undefined;
    return inst;
  }
  return undefined;
}

/** Whether two operands are one value, or equal integer constants (the parser makes one object per use). */
export function sameOperand(a: Value, b: Value): boolean {
  return a === b || (a.kind === 'const-int' && b.kind === 'const-int' && a.value === b.value && typesEqual(a.type, b.type));
}

/** Whether two addresses are the same value, or getelementptrs of the same operands. */
export function sameAddress(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (a.kind !== 'instruction' || b.kind !== 'instruction' || a.opcode !== 'getelementptr' || b.opcode !== 'getelementptr') return false;
  return a.sourceElementType !== undefined && b.sourceElementType !== undefined && typesEqual(a.sourceElementType, b.sourceElementType) && a.flags === b.flags && a.operands.length === b.operands.length && a.operands.every((op, i) => sameOperand(op, b.operands[i]!));
}

/** Whether `v` is available at the top of `block` (a constant, an argument, or defined in a block that dominates it). */
export function availableAt(v: Value, block: BasicBlock, dt: DomTree): boolean {
  return v.kind !== 'instruction' || (v.parent !== undefined && v.parent !== block && dt.dominates(v.parent, block));
}

/** The attachments every store has alike (`!tbaa` of one type); the others (`!dbg` of each branch's line) are dropped. */
export function commonMetadata(stores: readonly Instruction[]): MetadataAttachment[] {
  return stores[0]!.metadata.filter((m) => stores.every((s) => s.metadata.some((o) => o.name === m.name && o.ref === m.ref))).map((m) => ({ ...m }));
}

/** Sinks the stores into `join` when every predecessor ends with a store to the same address; whether it did. */
function sinkInto(join: BasicBlock, dt: DomTree): boolean {
  const preds = predecessors(join);
  if (preds.length < 2 || preds.includes(join)) return false;
  const stores: Instruction[] = [];
  for (const p of preds) {
    const s = lastStore(p, join);
    if (!s) return false;
    stores.push(s);
  }
  const [first] = stores as [Instruction];
  const address = first.operands[1]!;
  const type = first.operands[0]!.type;
  if (!stores.every((s) => typesEqual(s.operands[0]!.type, type) && sameAddress(s.operands[1]!, address))) return false;
  // The address at the join: the stores' own when it is available there, else a copy of their
  // getelementptr when its operands are.
  const reuse = availableAt(address, join, dt);
  if (!reuse && (address.kind !== 'instruction' || !address.operands.every((v) => availableAt(v, join, dt)))) return false;
  const b = new IrBuilder().positionAtStart(join);
  const phi = b.phi(type, undefined, stores.map((s, k): [Value, BasicBlock] => [s.operands[0]!, preds[k]!]));
  const ptr = reuse || address.kind !== 'instruction' ? address : b.gep(address.sourceElementType!, address.operands[0]!, address.operands.slice(1), undefined, (address.flags & InstFlag.InBounds) !== 0);
  const store = b.store(phi, ptr, Math.min(...stores.map((s) => s.align ?? 1)));
  store.metadata = commonMetadata(stores);
  for (const s of stores) {
    const old = s.operands[1]!;
    eraseInstruction(s);
    if (old !== ptr && old.kind === 'instruction' && !hasUses(old)) eraseInstruction(old);
  }
  return true;
}

/** Sinks stores into every join of `fn` where all its predecessors store to one address (again into joins below, until none is left); the number of joins. */
export function sinkStores(fn: IrFunction, dt: DomTree): number {
  let sunk = 0;
  for (let changed = true; changed; ) {
    changed = false;
    for (const block of fn.blocks) {
      if (!dt.isReachable(block) || !sinkInto(block, dt)) continue;
      sunk++;
      changed = true;
    }
  }
  return sunk;
}

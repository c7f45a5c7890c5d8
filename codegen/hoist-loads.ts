// One load before a branch where both of its arms load the same address: in `if (a[i] > 0) c[i] =
// -c[i] + ...; else b[i] = -b[i] + ...; a[i] = b[i] + c[i] * d[i];` (TSVC's s278) -O3 loads b[i]
// in the arm that stores c[i] (for the join) and in the arm that stores b[i] (before storing).
// opt-14's vectorizer if-converts the arms one after the other, so the first arm's masked store
// to b[i] is followed by the second arm's masked load of b[i]: a store forwarding that fails on the
// bench's Zen 4, 2.6x slower than with b[i] loaded once before the branch.
//
// A load is hoisted when each arm loads the address before anything in that arm may write it (a
// store to another global or alloca does not; a call that reads no memory does not), so both arms
// read the value the memory held at the branch: the one load there reads it too. Nothing is
// loaded that the program did not load on every path.
import type { DomTree } from '../analysis/dominators';
import { callIsReadNone } from '../ir/attributes';
import { IrBuilder } from '../ir/builder';
import { predecessors, terminator } from '../ir/cfg';
import { eraseInstruction } from '../ir/edit';
import { typesEqual } from '../ir/type-ops';
import { hasUses, replaceAllUsesWith } from '../ir/uses';
import { InstFlag, type BasicBlock, type Instruction, type IrFunction, type Module, type Value } from '../ir/types';
import { commonMetadata, sameAddress } from './sink-stores';

/** Whether `v` is available before `block`'s terminator (a constant, an argument, or defined in a block that dominates it or in it). */
function availableAtEnd(v: Value, block: BasicBlock, dt: DomTree): boolean {
  return v.kind !== 'instruction' || (v.parent !== undefined && dt.dominates(v.parent, block));
}

/** The global or alloca an address is an element of, through getelementptrs and bitcasts; undefined when not known. */
function identifiedObject(v: Value): Value | undefined {
  let p = v;
  while (p.kind === 'instruction' && (p.opcode === 'getelementptr' || p.opcode === 'bitcast')) p = p.operands[0]!;
  return p.kind === 'global' || (p.kind === 'instruction' && p.opcode === 'alloca') ? p : undefined;
}

/** Whether `inst` may write the memory `address` points into. */
function mayWrite(inst: Instruction, address: Value, m: Module): boolean {
  if (inst.opcode === 'store') {
    const a = identifiedObject(address);
    const b = identifiedObject(inst.operands[1]!);
    return a === undefined || b === undefined || a === b;
  }
  if (inst.opcode === 'call') return !callIsReadNone(inst, m);
  return ['invoke', 'callbr', 'fence', 'atomicrmw', 'cmpxchg', 'va_arg'].includes(inst.opcode);
}

/** The plain loads of `block` that read memory as it was when the block was entered. */
function entryLoads(block: BasicBlock, m: Module): Instruction[] {
  const loads: Instruction[] = [];
  for (const inst of block.instructions) {
    if (inst.opcode !== 'load' || inst.atomic || (inst.flags & InstFlag.Volatile) !== 0) continue;
    const address = inst.operands[0]!;
    const index = block.instructions.indexOf(inst);
    if (!block.instructions.slice(0, index).some((w) => mayWrite(w, address, m))) loads.push(inst);
  }
  return loads;
}

/** Hoists into `branch` the loads both its arms make of one address on entry; how many. */
function hoistFrom(branch: BasicBlock, m: Module, dt: DomTree): number {
  const t = terminator(branch);
  if (!t || t.opcode !== 'br' || t.operands.length !== 3) return 0;
  const [left, right] = [t.operands[1] as BasicBlock, t.operands[2] as BasicBlock];
  if (left === right || [left, right].some((arm) => arm === branch || predecessors(arm).length !== 1)) return 0;
  const rightLoads = entryLoads(right, m);
  let hoisted = 0;
  for (const l of entryLoads(left, m)) {
    const r = rightLoads.find((x) => x.parent === right && typesEqual(x.type, l.type) && sameAddress(x.operands[0]!, l.operands[0]!));
    if (!r) continue;
    const address = l.operands[0]!;
    const reuse = availableAtEnd(address, branch, dt);
    if (!reuse && (address.kind !== 'instruction' || !address.operands.every((v) => availableAtEnd(v, branch, dt)))) continue;
    const b = new IrBuilder().positionBefore(t);
    const ptr = reuse || address.kind !== 'instruction' ? address : b.gep(address.sourceElementType!, address.operands[0]!, address.operands.slice(1), undefined, (address.flags & InstFlag.InBounds) !== 0);
    const load = b.load(l.type, ptr, undefined, Math.min(l.align ?? 1, r.align ?? 1));
    load.metadata = commonMetadata([l, r]);
    for (const old of [l, r]) {
      const oldAddress = old.operands[0]!;
      replaceAllUsesWith(old, load);
      eraseInstruction(old);
      if (oldAddress !== ptr && oldAddress.kind === 'instruction' && !hasUses(oldAddress)) eraseInstruction(oldAddress);
    }
    hoisted++;
  }
  return hoisted;
}

/** Hoists the loads both arms of a branch make of one address on entry, in every branch of `fn`; how many. */
export function hoistCommonLoads(fn: IrFunction, m: Module, dt: DomTree): number {
  let hoisted = 0;
  for (const block of fn.blocks) if (dt.isReachable(block)) hoisted += hoistFrom(block, m, dt);
  return hoisted;
}

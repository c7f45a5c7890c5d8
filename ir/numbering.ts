// Slot numbers of unnamed local values, as LLVM assigns them: arguments, then blocks and
// value-producing instructions in order, one counter for all.
import type { IrFunction, Value } from './types';

/** Number of every unnamed argument, block and non-void instruction of `fn`. */
export function numberLocals(fn: IrFunction): Map<Value, number> {
  const slots = new Map<Value, number>();
  let next = 0;
  for (const a of fn.args) if (a.name === undefined || a.name === '') slots.set(a, next++);
  for (const b of fn.blocks) {
    if (b.name === undefined || b.name === '') slots.set(b, next++);
    for (const inst of b.instructions) {
      if (inst.type.kind !== 'void' && (inst.name === undefined || inst.name === '')) slots.set(inst, next++);
    }
  }
  return slots;
}

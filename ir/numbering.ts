// Slot numbers of unnamed local values, as LLVM assigns them: arguments, then blocks and
// value-producing instructions in order, one counter for all. A purely numeric name counts as
// unnamed (LLVM reserves `%5` for slot numbers).
import type { IrFunction, Value } from './types';

export function isUnnamed(name: string | undefined): boolean {
  if (name === undefined || name === '') return true;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Number of every unnamed argument, block and non-void instruction of `fn`. */
export function numberLocals(fn: IrFunction): Map<Value, number> {
  const slots = new Map<Value, number>();
  let next = 0;
  for (const a of fn.args) if (isUnnamed(a.name)) slots.set(a, next++);
  for (const b of fn.blocks) {
    if (isUnnamed(b.name)) slots.set(b, next++);
    for (const inst of b.instructions) {
      if (inst.type.kind !== 'void' && isUnnamed(inst.name)) slots.set(inst, next++);
    }
  }
  return slots;
}

// Sizes and field offsets of IR types in memory, for the x86-64 System V data
// layout clang-14 uses on this machine (`e-m:e-...-i64:64-f80:128-n8:16:32:64-S128`).
import type { Type } from '../ir';

/** Size in bytes that a value of type `t` occupies in memory (x86-64 System V layout). */
export function allocSize(t: Type): number {
  return roundUp(storeSize(t), alignOf(t));
}

function storeSize(t: Type): number {
  switch (t.kind) {
    case 'int': return Math.ceil(t.bits / 8);
    case 'float': return { half: 2, bfloat: 2, float: 4, double: 8, x86_fp80: 10, fp128: 16, ppc_fp128: 16 }[t.name];
    case 'ptr': return 8;
    case 'array': return t.length * allocSize(t.element);
    case 'vector': return t.length * storeSize(t.element);
    case 'struct': return structLayout(t.elements ?? [], t.packed).size;
    default: return 0;
  }
}

function alignOf(t: Type): number {
  switch (t.kind) {
    case 'int': return Math.min(8, Math.max(1, 2 ** Math.ceil(Math.log2(Math.ceil(t.bits / 8)))));
    case 'float': return t.name === 'x86_fp80' || t.name === 'fp128' ? 16 : storeSize(t);
    case 'ptr': return 8;
    case 'array': return alignOf(t.element);
    case 'vector': return Math.min(16, storeSize(t));
    case 'struct': return t.packed ? 1 : Math.max(1, ...(t.elements ?? []).map(alignOf));
    default: return 1;
  }
}

function roundUp(n: number, a: number): number {
  return Math.ceil(n / a) * a;
}

/** Byte offsets of a struct's fields and its size. */
export function structLayout(elements: readonly Type[], packed: boolean): { offsets: number[]; size: number } {
  let off = 0;
  const offsets: number[] = [];
  for (const e of elements) {
    if (!packed) off = roundUp(off, alignOf(e));
    offsets.push(off);
    off += allocSize(e);
  }
  const align = packed ? 1 : Math.max(1, ...elements.map(alignOf));
  return { offsets, size: roundUp(off, align) };
}

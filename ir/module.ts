// Module-level edits: finding, adding and removing functions and globals by name.
import { createFunction, createGlobalVariable } from './nodes';
import { typesEqual } from './type';
import type { FunctionType, GlobalVariable, IrFunction, Module, Type, Value } from './types';
import { appendOperand, dropAllOperands, setOperand } from './uses';

export function getFunction(m: Module, name: string): IrFunction | undefined {
  const g = m.symbols.get(name);
  return g && g.kind === 'function' ? g : undefined;
}

export function getGlobalVariable(m: Module, name: string): GlobalVariable | undefined {
  const g = m.symbols.get(name);
  return g && g.kind === 'global' ? g : undefined;
}

/**
 * The function `@name`, declared (`declare <type>`, with `attrs` as its suffix, e.g. `#5`)
 * if the module does not have it yet. Throws if it exists with another type.
 */
export function getOrInsertFunction(m: Module, name: string, type: FunctionType, suffix = ''): IrFunction {
  const existing = m.symbols.get(name);
  if (existing) {
    if (existing.kind !== 'function' || !typesEqual(existing.functionType, type)) {
      throw new Error(`getOrInsertFunction: @${name} exists with another type`);
    }
    return existing;
  }
  const fn = createFunction(m, name, type);
  fn.suffix = suffix;
  m.functions.push(fn);
  m.symbols.set(name, fn);
  return fn;
}

/** A fresh global name based on `base` (`base`, `base.1`, `base.2`, ...). */
export function uniqueGlobalName(m: Module, base: string): string {
  if (!m.symbols.has(base)) return base;
  let k = 1;
  while (m.symbols.has(`${base}.${k}`)) k++;
  return `${base}.${k}`;
}

/** Adds a global variable `@name` (made unique) of `valueType`; set its initializer with `setInitializer`. */
export function addGlobalVariable(m: Module, name: string, valueType: Type, options: { prefix?: string; constant?: boolean; suffix?: string } = {}): GlobalVariable {
  const g = createGlobalVariable(m, uniqueGlobalName(m, name), valueType);
  g.prefix = options.prefix ?? 'internal';
  g.isConstant = options.constant ?? false;
  g.suffix = options.suffix ?? '';
  m.globals.push(g);
  m.symbols.set(g.name, g);
  return g;
}

/** Removes a function that nothing uses any more. */
export function removeFunction(fn: IrFunction): void {
  if (fn.uses.length) throw new Error(`removeFunction: @${fn.name} is still used`);
  const m = fn.parent;
  for (const b of fn.blocks) for (const i of b.instructions) dropAllOperands(i);
  dropAllOperands(fn);
  m.functions.splice(m.functions.indexOf(fn), 1);
  m.symbols.delete(fn.name);
}

/** Removes a global variable that nothing uses any more. */
export function removeGlobalVariable(g: GlobalVariable): void {
  if (g.uses.length) throw new Error(`removeGlobalVariable: @${g.name} is still used`);
  const m = g.parent;
  dropAllOperands(g);
  m.globals.splice(m.globals.indexOf(g), 1);
  m.symbols.delete(g.name);
}

/** Sets (or replaces) the initializer of a global variable. */
export function setInitializer(g: GlobalVariable, value: Value): void {
  if (g.hasInitializer) setOperand(g, 0, value);
  else {
    appendOperand(g, value);
    g.hasInitializer = true;
  }
}

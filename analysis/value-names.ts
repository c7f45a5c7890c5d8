// How the analyses' printers name IR values: as LLVM prints them, `%name`, or
// `%N` for unnamed values numbered in LLVM's slot order (arguments, then each
// block's label and its non-void instructions, in order).
import { type BasicBlock, type IrFunction, type Value, printIdentifier } from '../ir';

/** The printed name of every local value of `fn` (arguments, blocks, instructions). */
export function localNames(fn: IrFunction): Map<Value, string> {
  const names = new Map<Value, string>();
  let next = 0;
  const name = (v: Value, own: string | undefined): void => {
    names.set(v, own !== undefined ? printIdentifier('%', own) : `%${next++}`);
  };
  for (const a of fn.args) name(a, a.name);
  for (const b of fn.blocks) {
    name(b, b.name);
    for (const i of b.instructions) {
      if (i.type.kind === 'void') continue;
      name(i, i.name);
    }
  }
  return names;
}

/** `%for.body`, or `%12` for an unnamed block (computes the function's numbering). */
export function blockName(b: BasicBlock): string {
  if (b.name !== undefined) return printIdentifier('%', b.name);
  return b.parent ? localNames(b.parent).get(b) ?? '%?' : '%?';
}

/** The printed name of any value: globals `@g`, locals via `names`, constants by value. */
export function valueName(v: Value, names: ReadonlyMap<Value, string>): string {
  switch (v.kind) {
    case 'function':
    case 'global':
    case 'alias':
      return printIdentifier('@', v.name);
    case 'const-int':
      return v.value.toString();
    case 'const-null':
      return 'null';
    default:
      return names.get(v) ?? `<${v.kind}>`;
  }
}

// Names in the polyhedral model: source names of IR values (from debug info or
// IR value names) and the isl identifiers made from them.
//
// isl identifiers must be C-like (`[A-Za-z_][A-Za-z0-9_]*`); we keep them
// readable because they show up in every printed set, in the report's
// C expressions, and in the code the AST generator emits:
//   parameters  `ni` (debug info), `n` (IR value name), `p_0` (unnamed `%0`)
//   statements  `Stmt_for_body` (Polly's convention)
//   arrays      `MemRef_A`, scalars `MemRef_x` and PHIs `MemRef_x__phi`
import { type IrFunction, type Module, type Value, calledFunction, resolveMetadata } from '../ir';

/** Source names of the function's values, from `llvm.dbg.value` / `llvm.dbg.declare` calls. */
export function debugValueNames(fn: IrFunction, module: Module): Map<Value, string> {
  const names = new Map<Value, string>();
  for (const block of fn.blocks) {
    for (const inst of block.instructions) {
      if (inst.opcode !== 'call') continue;
      const callee = calledFunction(inst);
      if (!callee || (callee.name !== 'llvm.dbg.value' && callee.name !== 'llvm.dbg.declare')) continue;
      const [valueOp, variableOp] = inst.operands.slice(1);
      if (!valueOp || valueOp.kind !== 'metadata' || valueOp.text !== undefined || valueOp.argList) continue;
      const value = valueOp.operands[0];
      if (!value || !variableOp || variableOp.kind !== 'metadata' || variableOp.text === undefined) continue;
      const variable = resolveMetadata(module, variableOp.text);
      const raw = variable?.fields.get('name');
      if (!variable || variable.tag !== 'DILocalVariable' || !raw?.startsWith('"')) continue;
      if (!names.has(value)) names.set(value, raw.slice(1, -1));
    }
  }
  return names;
}

/** The name a person knows `v` by: debug info first, then its IR name; undefined for unnamed values. */
export function sourceName(v: Value, debugNames: ReadonlyMap<Value, string>): string | undefined {
  const fromDebug = debugNames.get(v);
  if (fromDebug !== undefined) return fromDebug;
  switch (v.kind) {
    case 'argument':
    case 'instruction':
    case 'block':
      return v.name;
    case 'global':
    case 'function':
    case 'alias':
      return v.name;
    default:
      return undefined;
  }
}

/**
 * The name a SCoP parameter standing for `v` wants, before it is made unique: the
 * source name (debug info, then IR name), else the scalar-evolution unknown's IR
 * text (`%0` → `p_0` by `islIdentifier`). The model and delinearization both name
 * parameters with it, so their sets and conditions read alike.
 */
export function parameterName(v: Value, irName: string, debugNames: ReadonlyMap<Value, string>): string {
  return sourceName(v, debugNames) ?? irName;
}

/**
 * The name of an array (base pointer) for people and reports: detection's name when it
 * is a source name, else the source name of the base (debug info, IR name), else the
 * IR name as LLVM prints it (`%5`). Model, delinearization and report all use it.
 */
export function arrayName(base: Value, detectedName: string, debugNames: ReadonlyMap<Value, string>): string {
  return detectedName.startsWith('%') || detectedName.startsWith('@') ? (sourceName(base, debugNames) ?? detectedName) : detectedName;
}

/** Turns any text into an isl/C identifier: `for.body` → `for_body`, `0` → `p_0`. */
export function islIdentifier(text: string, prefixForDigits = 'p_'): string {
  let s = text.replace(/^[%@]/, '').replace(/[^A-Za-z0-9_]/g, '_');
  if (s === '') s = 'v';
  if (/^[0-9]/.test(s)) s = prefixForDigits + s;
  return s;
}

/**
 * Names the model gives dimensions of its own and that a parameter must not take:
 * isl reads a tuple's `i0` as "equal to the parameter i0" when a parameter has that
 * name. Statement counters are `i0, i1, …` everywhere (model, assumptions,
 * delinearization); delinearization's quasi-affine counters are `q__<id>`. (Array
 * subscript dimensions need no reservation: the model names them after the
 * parameters are known, see `describe.ts`.)
 */
export function isDimensionName(name: string): boolean {
  return /^i[0-9]+$/.test(name) || /^q__[0-9]+$/.test(name);
}

/** Hands out identifiers that are unique in one namespace, appending `_1`, `_2` on collisions. */
export class UniqueNames {
  private readonly taken = new Set<string>();
  /** Words isl's parser treats as keywords; never use them as identifiers. */
  private static readonly reserved = new Set(['and', 'or', 'not', 'mod', 'floor', 'ceil', 'min', 'max', 'exists', 'true', 'false', 'infty', 'NaN', 'implies', 'xor', 'rat', 'domain', 'range', 'cond']);

  /** `avoidDimensions`: also keep clear of the model's dimension names (for parameters). */
  constructor(private readonly avoidDimensions = false) {}

  take(wanted: string): string {
    let base = wanted;
    if (UniqueNames.reserved.has(base) || (this.avoidDimensions && isDimensionName(base))) base = base + '_';
    let name = base;
    for (let k = 1; this.taken.has(name); k++) name = `${base}_${k}`;
    this.taken.add(name);
    return name;
  }
}

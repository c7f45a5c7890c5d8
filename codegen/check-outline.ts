// `--rtc-check-functions`: each SCoP's run-time check computed in a function of its own,
//
//   tsopt.scopN.check:  %ok = call i1 @"tsopt.check.<function>.scopN"(inputs…)
//                       br i1 %ok, label %tsopt.scopN.fast, label %<original entry>
//
// so that what the check executes can be counted exactly in the final machine code: every
// instruction of that function (and of what it calls, e.g. libgcc's 128-bit division) is the
// check's and nothing else is (bench/check-cost.ts counts them with callgrind). The function is
// `noinline` (or the count would be mixed into the kernel again) and, when the check reads no
// memory, `readnone nounwind willreturn`, so LICM may still hoist the call out of an enclosing
// loop as it would the check's arithmetic. The program stays correct; it pays a call per check.
// Versioning also outlines, by default, the check of a SCoP inside a loop it does not cover
// (codegen/versioning.ts, insideOuterLoop): hoisted, the call leaves one i1 live in that loop, not
// every part of the check.
import {
  IrBuilder, cloneInstruction, dropAllOperands, createBlock, createFunction, eraseInstruction, functionType, insertBlock, insertInstruction, intType, setOperand,
  type BasicBlock, type Instruction, type IrFunction, type Module, type Value,
} from '../ir';

/** The instructions of `block` that `root` depends on, in block order. */
function sliceInBlock(root: Instruction, block: BasicBlock): Instruction[] {
  const inSlice = new Set<Instruction>();
  const work: Value[] = [root];
  while (work.length > 0) {
    const v = work.pop()!;
    if (v.kind !== 'instruction' || v.parent !== block || inSlice.has(v)) continue;
    inSlice.add(v);
    work.push(...v.operands);
  }
  return block.instructions.filter((i) => inSlice.has(i));
}

/** Whether the slice only computes (no memory access, no call but to intrinsics that do not touch memory). */
function computesOnly(slice: readonly Instruction[]): boolean {
  return slice.every((i) => {
    if (i.opcode === 'load' || i.opcode === 'store' || i.opcode === 'atomicrmw' || i.opcode === 'cmpxchg' || i.opcode === 'fence') return false;
    if (i.opcode !== 'call') return i.opcode !== 'invoke' && i.opcode !== 'callbr';
    const callee = i.operands[0];
    return callee?.kind === 'function' && /^llvm\.(s|u)(add|sub|mul)\.with\.overflow\./.test(callee.name);
  });
}

export interface OutlinedCheck {
  /** What the check block branches on: the call, or `cond` itself when there was nothing to outline. */
  readonly value: Value;
  /** The check's function (undefined when there was nothing to outline). */
  readonly function?: IrFunction;
  /**
   * Erases the check block's copies nothing uses any more (those the fast path or --rtc-stats's
   * counters use stay). Separate, because the caller may still build on them before.
   */
  readonly eraseUnused: () => void;
}

/**
 * Copies the computation of `cond` (an i1 built at the end of `check`) into a new function
 * `name` and builds the call that replaces it at the end of `check`. A `cond` that is not an
 * instruction of `check` (a constant: no check) stays as it is.
 */
export function outlineCheck(module: Module, check: BasicBlock, cond: Value, name: string): OutlinedCheck {
  if (cond.kind !== 'instruction' || cond.parent !== check) return { value: cond, eraseUnused: () => undefined };
  const slice = sliceInBlock(cond, check);
  const members = new Set(slice);
  // Values the slice reads from outside it become the function's parameters.
  const inputs: Value[] = [];
  const seen = new Set<Value>();
  for (const inst of slice) {
    for (const op of inst.operands) {
      const outside = (op.kind === 'instruction' && !members.has(op)) || op.kind === 'argument';
      if (outside && !seen.has(op)) {
        seen.add(op);
        inputs.push(op);
      }
    }
  }
  const fn: IrFunction = createFunction(module, name, functionType(intType(1), inputs.map((v) => v.type)));
  fn.prefix = 'internal';
  fn.suffix = computesOnly(slice) ? 'noinline nounwind readnone willreturn' : 'noinline';
  module.functions.push(fn);
  module.symbols.set(fn.name, fn);
  const map = new Map<Value, Value>();
  inputs.forEach((v, k) => {
    const arg = fn.args[k]!;
    arg.name = `tsopt.in${k}`;
    map.set(v, arg);
  });
  const body = insertBlock(fn, createBlock('entry'));
  for (const inst of slice) {
    const copy = insertInstruction(body, cloneInstruction(inst));
    // A location of the caller's subprogram would be wrong here (the new function has none).
    copy.metadata = copy.metadata.filter((m) => m.name !== 'dbg');
    copy.operands.forEach((op, k) => {
      const mapped = map.get(op);
      if (mapped) setOperand(copy, k, mapped);
    });
    map.set(inst, copy);
  }
  const b = new IrBuilder(body);
  b.ret(map.get(cond)!);
  const call = new IrBuilder(check).call(fn, inputs, 'tsopt.check.ok');
  const eraseUnused = (): void => {
    // Users before what they use, so a chain only the check needed goes entirely.
    for (let k = slice.length - 1; k >= 0; k--) {
      const inst = slice[k]!;
      if (inst.parent && inst.uses.length === 0) eraseInstruction(inst);
    }
  };
  return { value: call, function: fn, eraseUnused };
}

/** Takes the check's function out of the module again (versioning gave up on the SCoP); the call must be gone. */
export function removeCheckFunction(module: Module, outlined: OutlinedCheck): void {
  const fn = outlined.function;
  if (!fn) return;
  for (const block of fn.blocks) for (const inst of block.instructions) dropAllOperands(inst);
  module.functions.splice(module.functions.indexOf(fn), 1);
  module.symbols.delete(fn.name);
}

/** The name of the check function of SCoP `index` of `fn` (bench/check-cost.ts finds them by its prefix). */
export function checkFunctionName(fn: IrFunction, index: number): string {
  return `${CHECK_FUNCTION_PREFIX}${fn.name}.scop${index}`;
}

export const CHECK_FUNCTION_PREFIX = 'tsopt.check.';

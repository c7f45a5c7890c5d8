// Copies one statement instance into the fast path (Polly's BlockGenerator): the statement's
// side effects (stores) and, on demand, the operand trees they need, with
//   - values defined before the SCoP used as they are,
//   - instructions of the statement's block cloned with remapped operands,
//   - PHIs (induction variables) rebuilt from their scalar evolution over the new
//     induction variables,
//   - pure instructions of other SCoP blocks (address arithmetic) cloned in place.
// A statement that is one part of its block (statement splitting) copies only its part's
// instructions. Scalars the model knows (values defined in one statement and used in another, PHIs) go
// through memory, as Polly demotes them: each has a stack slot; a read loads it where the
// value is first needed, writes store to it after the statement's instructions. Scalars DeLICM
// mapped onto array elements live there instead (see mapped-accesses.ts); operand trees it
// forwarded are recomputed like address arithmetic, by copying their pure instructions.
// Anything else crossing statements (a load or a non-synthesizable PHI of another block,
// not in the model) throws `UnsupportedCodeError` and the caller leaves the SCoP as it was.
import {
  IrBuilder, calledFunction, callIsReadNone, cloneInstruction, constantIntValue, i8, pointerTo, typesEqual, dropAllOperands, setOperand, type BasicBlock, type Instruction, type Module, type Value,
} from '../ir';
import type { ScalarEvolution } from '../analysis/scalar-evolution';
import type { ScevLoop } from '../analysis/scev';
import { isMathCall } from '../analysis/math-calls';
import { ScevExpander, NotExpandableError } from './scev-expander';
import { PURE_INTRINSIC } from '../transform/delicm/forward';

export class UnsupportedCodeError extends Error {}

const DIVISIONS = new Set(['udiv', 'sdiv', 'urem', 'srem']);

/** A division that may trap: by zero, or (signed) INT_MIN by -1; a constant divisor other than those cannot. */
function mayTrap(inst: Instruction): boolean {
  if (!DIVISIONS.has(inst.opcode)) return false;
  const d = constantIntValue(inst.operands[1]!);
  return d === undefined || d === 0n || ((inst.opcode === 'sdiv' || inst.opcode === 'srem') && d === -1n);
}
/** Calls that only inform the optimizer: dropped from the copy. */
const IGNORED_INTRINSICS = /^llvm\.(dbg\.|lifetime\.|assume$|experimental\.noalias\.scope\.decl$)/;

export interface StatementCopyContext {
  readonly module: Module;
  readonly se: ScalarEvolution;
  readonly regionBlocks: ReadonlySet<BasicBlock>;
  /** Called on every copied load and store with its original, to attach metadata. */
  decorate(copy: Instruction, original: Instruction): void;
}

/** The scalar accesses of one statement: slot reads by original value, slot writes in order. */
export interface StatementScalars {
  /** Original value (a PHI or an instruction of another statement) → its slot (an alloca). */
  readonly reads: ReadonlyMap<Value, Instruction>;
  /** After the statement: store (the copy of) `value` to `slot`. */
  readonly writes: readonly { readonly slot: Instruction; readonly value: Value }[];
  /**
   * Before the statement's instructions: values that stand for scalars (DeLICM's mapped reads,
   * codegen/mapped-accesses.ts), given the copy's value of an original value (an address the
   * statement computes is copied once and shared with the instructions copied after).
   */
  readonly atStart?: (b: IrBuilder, valueOf: (v: Value) => Value) => ReadonlyMap<Value, Value>;
  /** After the slot writes, given the copy's value of an original value (DeLICM's mapped writes). */
  readonly atEnd?: (b: IrBuilder, valueOf: (v: Value) => Value) => void;
}

export function copyStatement(
  cx: StatementCopyContext,
  block: BasicBlock,
  iterations: ReadonlyMap<ScevLoop, Value>,
  b: IrBuilder,
  scalars: StatementScalars = { reads: new Map(), writes: [] },
  only?: ReadonlySet<Instruction>,
): void {
  const map = new Map<Value, Value>();
  const inRegion = (v: Value): v is Instruction => v.kind === 'instruction' && v.parent !== undefined && cx.regionBlocks.has(v.parent);
  const expander = new ScevExpander(b, {
    iterationOf: (loop) => iterations.get(loop),
    isAvailable: (v) => !inRegion(v),
  });

  const newValue = (v: Value): Value => {
    if (!inRegion(v)) return v;
    const known = map.get(v);
    if (known) return known;
    let result: Value;
    const slot = scalars.reads.get(v);
    if (slot) {
      result = b.load(v.type, slot);
    } else if (v.opcode === 'phi') {
      try {
        result = v.type.kind === 'ptr' ? pointerPhi(v) : expander.wrapped(closedForm(v));
      } catch (e) {
        if (e instanceof NotExpandableError) throw new UnsupportedCodeError(`the PHI ${cx.se.nameOf(v)} is a scalar dependence: ${e.message}`);
        throw e;
      }
    } else if (v.parent !== block && (v.opcode === 'load' || (v.opcode === 'call' && !PURE_INTRINSIC.test(calledFunction(v)?.name ?? '')) || mayTrap(v))) {
      throw new UnsupportedCodeError(`${cx.se.nameOf(v)} (${v.opcode}) crosses statements`);
    } else {
      result = copy(v);
    }
    map.set(v, result);
    return result;
  };

  // A PHI as the statement sees it: a loop the statement is not in has finished (an
  // unrolled loop's remainder reads the main loop's counter after it).
  const closedForm = (phi: Instruction) => cx.se.atScope(cx.se.getScev(phi), cx.se.loops.loopFor(block));

  // A pointer induction variable (-O3's strength-reduced row pointers): base + byte offset.
  const pointerPhi = (phi: Instruction): Value => {
    const split = phi.type.kind === 'ptr' && phi.type.addrSpace === 0 ? cx.se.pointerBase(closedForm(phi)) : undefined;
    if (!split || split.offset.bits !== 64) throw new UnsupportedCodeError(`the PHI ${cx.se.nameOf(phi)} is not an induction variable`);
    const base = split.base.value as Value;
    if (inRegion(base)) throw new UnsupportedCodeError(`the base of the PHI ${cx.se.nameOf(phi)} is defined inside the SCoP`);
    const bytes = base.type.kind === 'ptr' && base.type.pointee === undefined ? base.type : pointerTo(i8);
    const raw = b.gep(i8, typesEqual(base.type, bytes) ? base : b.bitcast(base, bytes), [expander.wrapped(split.offset)], undefined, false);
    return typesEqual(phi.type, bytes) ? raw : b.bitcast(raw, phi.type);
  };

  const copy = (inst: Instruction): Instruction => {
    const c = cloneInstruction(inst);
    c.metadata = c.metadata.filter((m) => m.name !== 'llvm.loop' && m.name !== 'llvm.access.group');
    try {
      for (let k = 0; k < inst.operands.length; k++) {
        const op = inst.operands[k]!;
        const mapped = newValue(op);
        if (mapped !== op) setOperand(c, k, mapped);
      }
    } catch (e) {
      // A detached clone would keep its operands (the original's and the copies') used.
      dropAllOperands(c);
      throw e;
    }
    b.insert(c, inst.name);
    if (inst.opcode === 'load' || inst.opcode === 'store') cx.decorate(c, inst);
    return c;
  };

  for (const [original, value] of scalars.atStart?.(b, newValue) ?? []) map.set(original, value);
  // Program order, loads included: a load must not move past a store of the same statement.
  // A statement that is one part of its block (`only`, analysis/statement-split.ts) runs its part.
  for (const inst of block.instructions) {
    if (inst.opcode === 'phi' || inst.opcode === 'br' || inst.opcode === 'switch' || map.has(inst) || (only && !only.has(inst))) continue;
    if (inst.opcode === 'call') {
      const callee = inst.operands[0];
      const name = callee && callee.kind === 'function' ? callee.name : '';
      if (IGNORED_INTRINSICS.test(name)) continue;
      if (!callIsReadNone(inst, cx.module) && !isMathCall(inst, cx.module)) throw new UnsupportedCodeError(`a call with side effects (${name || 'indirect'})`);
    }
    if (inst.atomic || inst.opcode === 'fence' || inst.opcode === 'atomicrmw' || inst.opcode === 'cmpxchg') {
      throw new UnsupportedCodeError(`an atomic operation (${inst.opcode})`);
    }
    if (inst.opcode === 'ret' || inst.opcode === 'unreachable' || inst.opcode === 'invoke') throw new UnsupportedCodeError(`a ${inst.opcode} in a statement`);
    map.set(inst, copy(inst));
  }
  for (const w of scalars.writes) b.store(newValue(w.value), w.slot);
  scalars.atEnd?.(b, newValue);
}

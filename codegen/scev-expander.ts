// Scalar-evolution expressions → IR (LLVM's SCEVExpander, reduced to what SCoPs contain).
//
// Two readings of one expression:
// - `wrapped`: the value the original code computes, in the expression's own width, with
//   modular arithmetic (SCEV's arithmetic is modular, so this reproduces the original value
//   whatever the no-wrap flags say). Used for the fast path's copies of synthesizable values:
//   add recurrences of SCoP loops read the new induction variables.
// - `exact`: the mathematical value isl works with, in i128: casts are read through (the
//   model assumes, and the run-time check verifies, that they do not wrap), operands are
//   sign-extended. Used for parameters in the run-time check.
import { type IrBuilder, constInt, intType, type Value, type Instruction, type IrFunction, typesEqual } from '../ir';
import { type Scev, ScevKind } from '../analysis/scev';
import type { ScevLoop } from '../analysis/scev';
import { exactProduct } from './exact-product';

/** Thrown when an expression cannot be rebuilt outside the original code (a value defined inside the SCoP, an unknown loop). */
export class NotExpandableError extends Error {}

const i128 = intType(128);

export interface ExpanderEnvironment {
  /**
   * The new induction variable (iteration number, i64) of a SCoP loop, or undefined for a loop outside the SCoP.
   * For the run-time check (`exact`): the iteration number of a loop containing the SCoP (outer-iteration.ts).
   */
  iterationOf(loop: ScevLoop): Value | undefined;
  /** True when an unknown's IR value may be used where the expansion is emitted (defined before the SCoP). */
  isAvailable(v: Value): boolean;
}

export class ScevExpander {
  /** i1 values under which every `exact` product of more than two factors is exact. */
  readonly productGuards: Value[] = [];

  constructor(readonly b: IrBuilder, readonly env: ExpanderEnvironment) {}

  wrapped(s: Scev): Value {
    const b = this.b;
    const ty = intType(s.bits);
    switch (s.kind) {
      case ScevKind.Constant:
        return constInt(ty, s.value);
      case ScevKind.Unknown: {
        const v = s.value as Value;
        if (!this.env.isAvailable(v)) throw new NotExpandableError(`${s.name} is defined inside the SCoP`);
        if (v.type.kind === 'ptr') return b.cast('ptrtoint', v, ty);
        if (v.type.kind !== 'int') throw new NotExpandableError(`${s.name} is not an integer`);
        return v;
      }
      case ScevKind.Truncate:
        return b.trunc(this.wrapped(s.operand), ty);
      case ScevKind.ZeroExtend:
        return b.zext(this.wrapped(s.operand), ty);
      case ScevKind.SignExtend:
        return b.sext(this.wrapped(s.operand), ty);
      case ScevKind.Add:
        return s.operands.map((o) => this.wrapped(o)).reduce((x, y) => b.add(x, y));
      case ScevKind.Mul:
        return s.operands.map((o) => this.wrapped(o)).reduce((x, y) => b.mul(x, y));
      case ScevKind.UDiv:
        return b.binary('udiv', this.wrapped(s.lhs), this.wrapped(s.rhs));
      case ScevKind.SMax:
      case ScevKind.SMin:
      case ScevKind.UMax:
      case ScevKind.UMin: {
        const pred = ({ [ScevKind.SMax]: 'sgt', [ScevKind.SMin]: 'slt', [ScevKind.UMax]: 'ugt', [ScevKind.UMin]: 'ult' } as const)[s.kind];
        return s.operands.map((o) => this.wrapped(o)).reduce((x, y) => b.select(b.icmp(pred, x, y), x, y));
      }
      case ScevKind.AddRec: {
        if (s.operands.length !== 2) throw new NotExpandableError('an add recurrence of order two or more');
        const iv = this.env.iterationOf(s.loop);
        if (!iv) throw new NotExpandableError(`a recurrence of ${s.loop.headerName}, a loop outside the SCoP`);
        const k = s.bits === 64 ? iv : s.bits < 64 ? b.trunc(iv, ty) : b.sext(iv, ty);
        return b.add(this.wrapped(s.operands[0]!), b.mul(this.wrapped(s.operands[1]!), k));
      }
      case ScevKind.CouldNotCompute:
        throw new NotExpandableError('an expression scalar evolution could not compute');
    }
  }

  /** The mathematical value of a loop-invariant expression, in i128. */
  exact(s: Scev): Value {
    const b = this.b;
    switch (s.kind) {
      case ScevKind.Constant:
        return constInt(i128, s.value);
      case ScevKind.Unknown: {
        const v = s.value as Value;
        if (!this.env.isAvailable(v)) throw new NotExpandableError(`${s.name} is defined inside the SCoP`);
        if (v.type.kind === 'ptr') return b.zext(b.cast('ptrtoint', v, intType(64)), i128);
        if (v.type.kind !== 'int') throw new NotExpandableError(`${s.name} is not an integer`);
        return b.sext(v, i128);
      }
      case ScevKind.Truncate:
      case ScevKind.ZeroExtend:
      case ScevKind.SignExtend:
        return this.exact(s.operand);
      case ScevKind.Add:
        return s.operands.map((o) => this.exact(o)).reduce((x, y) => b.add(x, y));
      case ScevKind.Mul:
        // Past two factors each partial product is guarded; the guards join the check (codegen/check-emit.ts).
        return exactProduct(b, s.operands.map((o) => this.exact(o)), this.productGuards);
      case ScevKind.UDiv:
        return b.binary('sdiv', this.exact(s.lhs), this.exact(s.rhs));
      case ScevKind.SMax:
      case ScevKind.SMin:
      case ScevKind.UMax:
      case ScevKind.UMin: {
        const pred = s.kind === ScevKind.SMax || s.kind === ScevKind.UMax ? 'sgt' : 'slt';
        return s.operands.map((o) => this.exact(o)).reduce((x, y) => b.select(b.icmp(pred, x, y), x, y));
      }
      case ScevKind.AddRec: {
        // A recurrence of a loop around the SCoP, at the SCoP's entry: start + step * iteration.
        const k = s.operands.length === 2 ? this.env.iterationOf(s.loop) : undefined;
        if (!k) throw new NotExpandableError('a varying expression used as a parameter');
        const iteration = k.type.kind === 'int' && k.type.bits < 128 ? b.sext(k, i128) : k;
        return b.add(this.exact(s.operands[0]!), b.mul(this.exact(s.operands[1]!), iteration));
      }
      default:
        throw new NotExpandableError('a varying expression used as a parameter');
    }
  }
}

/** True when `v` (an instruction) has the same type as `s` describes (integers only). */
export function expandsTo(v: Instruction, s: Scev): boolean {
  return typesEqual(v.type, intType(s.bits));
}

export type { IrFunction };

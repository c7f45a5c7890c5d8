// DeLICM's mapped scalar accesses in the fast path (the contract in transform/delicm/index.ts).
// A mapped read (`array.kind === 'array'`, `scalar` set) loads the element its relation names
// at the statement's start; the load stands for the scalar (the SSA value or the PHI) in the
// copy. A mapped write stores `storedValue(access)` to its element at the statement's end, in
// the accesses' order, and only in the instances its relation covers (a partial write).
// So a mapped scalar needs no stack slot: its value lives in the array element.
//
// The element is computed from the relation: isl gives each subscript as an AST expression
// over the statement's counters and the parameters (`planMappedAccesses`, run under the
// caller's isl scope and quota), and the address is the array's base plus the linearized
// subscripts, as the run-time check computes it. A mapped read of the element the statement
// itself stores to (the accumulator of a reduction: C[i][j] in C[i][j] += A[i][k] * B[k][j]
// over DeLICM's model of -O3's register sum) loads through the copy of that store's address
// instead: one pointer for both, which alias analysis sees as the same element, so LICM keeps
// the element in a register across the loop around them (the matmul path's micro-kernel).
import { AstBuild, readAstExpr, type AstExprTree } from 'isl-wasm';
import {
  IrBuilder, pointerTo, typesEqual, type BasicBlock, type Instruction, type PointerType, type Type, type Value,
} from '../ir';
import { storedValue } from '../transform/delicm';
import type { ScopAccess, ScopArray, ScopModel, ScopStatementModel } from '../polyhedral/model';
import { pointsAtParams } from '../polyhedral/relations';
import { AstExprEmitter } from './ast-expr';
import { UnsupportedCodeError } from './block-generator';

/** One mapped access, ready for code generation (plain data: no isl object). */
export interface MappedAccessPlan {
  readonly access: ScopAccess;
  /** The element's subscripts, outermost first, over `counterName(k)` and the parameters. */
  readonly subscripts: readonly AstExprTree[];
  /** For a partial write: the statement instances that store (undefined: all of them). */
  readonly condition: AstExprTree | undefined;
  /** For a read: the pointer operand of the statement's own store to the same element, when it has one (load through its copy). */
  readonly storedAt: Value | undefined;
}

/** The AST name of the statement's k-th counter in the plans' expressions (no parameter is named so). */
export function counterName(k: number): string {
  return `__i${k}`;
}

export function isMappedAccess(a: ScopAccess): boolean {
  return a.array.kind === 'array' && a.scalar !== undefined;
}

/**
 * The mapped accesses of every statement of `model`, in the accesses' order. Call inside
 * `ctx.scope` (and the quota): the isl objects made here are temporaries.
 */
export function planMappedAccesses(model: ScopModel): Map<ScopStatementModel, MappedAccessPlan[]> {
  const ctx = model.ctx;
  const plans = new Map<ScopStatementModel, MappedAccessPlan[]>();
  for (const st of model.statements) {
    const mapped = st.accesses.filter(isMappedAccess);
    if (mapped.length === 0) continue;
    const counters = st.loops.map((_, k) => counterName(k));
    // [counters] -> { [] -> Stmt[counters] }: the statement instance, its counters made parameters
    const instance = pointsAtParams(ctx, { name: st.name, dims: counters.length }, counters, counters.map((_, k) => [k, k]));
    // [params, counters] -> { : the instance runs }
    const runs = instance.intersectRange(st.domain.intersectParams(model.context)).domain().params();
    const build = AstBuild.fromContext(runs);
    plans.set(st, mapped.map((access) => {
      // [params, counters] -> { [] -> MemRef_A[o..] }
      const element = instance.applyRange(access.relation.intersectDomain(st.domain));
      if (!element.isSingleValued()) throw new UnsupportedCodeError(`the mapped access to ${access.array.name} names no single element`);
      // [params, counters] -> MemRef_A[o..]: one element wherever there is one
      const at = element.range().lexminPwMultiAff();
      const subscripts = Array.from({ length: element.range().tupleDim() }, (_, k) => readAstExpr(build.exprFromPwAff(at.getAt(k))));
      // [params, counters] -> { : the instance has an element }
      const covered = element.domain().params();
      let condition: AstExprTree | undefined;
      if (!runs.isSubset(covered)) {
        if (access.kind === 'read') throw new UnsupportedCodeError(`the mapped read of ${access.array.name} has no element in some instances`);
        condition = readAstExpr(build.exprFromSet(covered));
      }
      return { access, subscripts, condition, storedAt: access.kind === 'read' ? ownStoreAddress(st, access) : undefined };
    }));
  }
  return plans;
}

/**
 * The pointer operand of `st`'s own store (a plain array write, in its block) to the element of
 * the mapped read `read` in every instance, if its address is pure arithmetic (copying it
 * before the statement's instructions then changes nothing).
 */
function ownStoreAddress(st: ScopStatementModel, read: ScopAccess): Value | undefined {
  const element = read.relation.intersectDomain(st.domain);
  const store = st.accesses.find((a) => a.kind === 'write' && a.certainty === 'must' && !isMappedAccess(a) && a.array === read.array
    && a.instruction?.opcode === 'store' && a.instruction.parent === st.block && a.relation.intersectDomain(st.domain).isEqual(element));
  const pointer = store?.instruction?.operands[1];
  return pointer !== undefined && pureAddress(pointer, st.block) ? pointer : undefined;
}

/** Whether `v`'s operand tree inside `block` is arithmetic only (no load, call or PHI of the block). */
function pureAddress(v: Value, block: BasicBlock): boolean {
  if (v.kind !== 'instruction' || v.parent !== block) return true;
  if (!['getelementptr', 'bitcast', 'add', 'sub', 'mul', 'shl', 'sext', 'zext', 'trunc', 'or'].includes(v.opcode)) return false;
  return v.operands.every((op) => pureAddress(op, block));
}

/** What emitting a statement's mapped accesses needs from the code generator. */
export interface MappedAccessContext {
  /** A parameter's value (i64) on the fast path. */
  parameter(name: string): Value;
  /** The array's sizes after the outermost (i64), computed where they dominate the fast path. */
  sizes(array: ScopArray): readonly Value[];
  /** Attaches alias scopes and access groups to a load or store of `array`. */
  decorate(inst: Instruction, array: ScopArray): void;
  /** A new block of the fast path (for partial writes). */
  newBlock(name: string): BasicBlock;
  readonly regionBlocks: ReadonlySet<BasicBlock>;
}

/** `pointer` as a pointer to `type`. */
function typedPointer(b: IrBuilder, pointer: Value, type: Type): Value {
  const p = pointer.type as PointerType;
  return p.pointee !== undefined && typesEqual(p.pointee, type) ? pointer : b.bitcast(pointer, pointerTo(type, p.addrSpace));
}

/** The address of the element `subscripts` (i64) of `array`, as a pointer to `type`. */
export function elementAddress(b: IrBuilder, array: ScopArray, type: Type, subscripts: readonly Value[], sizes: readonly Value[]): Value {
  let linear = subscripts[0]!;
  for (let k = 1; k < subscripts.length; k++) linear = b.add(b.mul(linear, sizes[k - 1]!), subscripts[k]!);
  return b.gep(type, typedPointer(b, array.value, type), [linear]);
}

/**
 * The hooks `copyStatement` calls for one statement instance (counters `args`, i64):
 * `atStart` loads the mapped reads and says which scalar each load stands for,
 * `atEnd` stores the mapped writes (values through `valueOf`, the copy's values).
 */
export function mappedAccessHooks(plans: readonly MappedAccessPlan[], args: readonly Value[], cx: MappedAccessContext): {
  atStart(b: IrBuilder, valueOf: (v: Value) => Value): Map<Value, Value>;
  atEnd(b: IrBuilder, valueOf: (v: Value) => Value): void;
} {
  const lookup = (name: string): Value => {
    const k = /^__i(\d+)$/.exec(name);
    return k ? args[Number(k[1])]! : cx.parameter(name);
  };
  const address = (b: IrBuilder, plan: MappedAccessPlan, type: Type): Value => {
    const array = plan.access.array;
    if (array.value.kind === 'instruction' && array.value.parent && cx.regionBlocks.has(array.value.parent)) {
      throw new UnsupportedCodeError(`the base of ${array.name} is computed in the SCoP`);
    }
    const e = new AstExprEmitter(b, 64, lookup);
    return elementAddress(b, array, type, plan.subscripts.map((s) => e.value(s)), cx.sizes(array));
  };
  return {
    atStart(b, valueOf) {
      const loaded = new Map<Value, Value>();
      for (const plan of plans) {
        if (plan.access.kind !== 'read') continue;
        const scalar = plan.access.scalar!.value;
        const load = b.load(scalar.type, plan.storedAt ? typedPointer(b, valueOf(plan.storedAt), scalar.type) : address(b, plan, scalar.type));
        cx.decorate(load, plan.access.array);
        loaded.set(scalar, load);
      }
      return loaded;
    },
    atEnd(b, valueOf) {
      const writes = plans.filter((p) => p.access.kind === 'write');
      // Every value first: a value copied under a partial write's branch would not dominate the others.
      const values = writes.map((p) => {
        const v = storedValue(p.access);
        if (v === undefined) throw new UnsupportedCodeError(`a mapped write to ${p.access.array.name} without its value`);
        return valueOf(v);
      });
      writes.forEach((plan, k) => {
        const value = values[k]!;
        let merge: BasicBlock | undefined;
        if (plan.condition) {
          const store = cx.newBlock('mapped.store');
          merge = cx.newBlock('mapped.merge');
          b.condBr(new AstExprEmitter(b, 64, lookup).cond(plan.condition), store, merge);
          b.positionAtEnd(store);
        }
        const store = b.store(value, address(b, plan, value.type));
        cx.decorate(store, plan.access.array);
        if (merge) {
          b.br(merge);
          b.positionAtEnd(merge);
        }
      });
    },
  };
}

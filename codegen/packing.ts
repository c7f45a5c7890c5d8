// The matmul path's packed operands in the fast path (transform/matmul.ts, PackedOperand).
// The schedule tree holds, per packed read, a copy statement Pack_n[j, k] (an extension before
// each Mc loop); here it loads the operand's element of (j, k) where the statement reads it
// and stores it in a buffer laid out [k][j], and the matmul statement's packed load reads the
// buffer instead: stride 1 along the micro-kernel's vectorized j, one row per k.
//
// The buffers are allocated per run of the fast path: one malloc, made in a block of its own
// between the check and the fast path (a null pointer runs the original code instead), freed
// where the fast path ends. A fast path running twice at once (two threads calling the
// function, recursion) gets two sets of buffers. Each buffer covers the statement's whole
// j x k range, indexed by the global j and k (an affine address, which opt's vectorizer
// needs): each copy fills the part of one Nc x Kc block, so blocks the jc loop runs on
// different threads write apart. Rows are padded to whole cache lines and every buffer starts
// on one (64 bytes).
//
// A packed element's only use, a product with a value the SCoP does not compute, is folded into
// the copy (transform/packed-product.ts): the buffer holds the product, and the statement reads
// it in place of the fmul.
import { AstBuild, readAstExpr, type AstExprTree } from 'isl-wasm';
import {
  attributeSet, cloneInstruction, constInt, constNull, functionType, getFunction, getOrInsertFunction, i8, i64, IrBuilder, pointerTo, typesEqual, voidType,
  type FunctionType, type Instruction, type IrFunction, type Module, type Type, type Value, setOperand,
} from '../ir';
import { allocSize } from '../analysis/data-layout';
import { UnsupportedCodeError } from './block-generator';
import { AstExprEmitter } from './ast-expr';
import { counterName, elementAddress } from './mapped-accesses';
import type { ScopAccess, ScopArray, ScopModel, ScopStatementModel } from '../polyhedral/model';
import { pointsAtParams } from '../polyhedral/relations';
import type { PackedOperand } from '../transform/matmul';
import { foldedProduct, type FoldedProduct } from '../transform/packed-product';

/** One packed read, ready for code generation (plain data: no isl object). */
export interface PackingPlan {
  readonly operand: PackedOperand;
  readonly statement: ScopStatementModel;
  readonly access: ScopAccess;
  /** The read's element at (j, k): subscripts over counterName(0) = j, counterName(1) = k. */
  readonly subscripts: readonly AstExprTree[];
  /** The operand's row and k ranges over the parameters ([rowMin, rowMax, kMin, kMax]), for the run-time layout; undefined when they are constants. */
  readonly ranges?: readonly AstExprTree[];
  /** The product folded into the copy (see the head of this file). */
  readonly fold?: FoldedProduct;
}

/** The plans of `operands`. Call inside `ctx.scope` (and the quota): the isl objects made here are temporaries. */
export function planPacking(model: ScopModel, operands: readonly PackedOperand[]): PackingPlan[] {
  const ctx = model.ctx;
  const region = new Set(model.scop.blocks);
  return operands.map((operand) => {
    const st = model.statements.find((s) => s.name === operand.statement)!;
    const access = st.accesses[operand.access]!;
    // [j, k] -> { [] -> S[x..] : x_j = j and x_k = k }: the instances reading the element of (j, k)
    const instances = pointsAtParams(ctx, { name: st.name, dims: st.loops.length }, [counterName(0), counterName(1)], [[operand.row, 0], [operand.roles.k, 1]])
      .intersectRange(st.domain.intersectParams(model.context));
    // [j, k] -> { [] -> MemRef_B[o..] }: one element (the read is invariant along i)
    const element = instances.applyRange(access.relation.intersectDomain(st.domain));
    const at = element.range().lexminPwMultiAff();
    const build = AstBuild.fromContext(element.domain().params());
    const subscripts = Array.from({ length: element.range().tupleDim() }, (_, d) => readAstExpr(build.exprFromPwAff(at.getAt(d))));
    const fold = foldedProduct(access.instruction!, region);
    const folded = fold ? { fold } : {};
    const constant = [operand.rowMin, operand.rowMax, operand.kMin, operand.kMax].every((v) => v !== undefined);
    if (constant) return { operand, statement: st, access, subscripts, ...folded };
    // Parametric sizes: the ranges as expressions of the parameters, over the statement's instances.
    const domain = st.domain.intersectParams(model.context);
    const params = AstBuild.fromContext(model.context);
    const ranges = [domain.dimMin(operand.row), domain.dimMax(operand.row), domain.dimMin(operand.roles.k), domain.dimMax(operand.roles.k)]
      .map((pa) => readAstExpr(params.exprFromPwAff(pa)));
    return { operand, statement: st, access, subscripts, ranges, ...folded };
  });
}

/** What emitting the copies and the packed reads needs from the code generator. */
export interface PackingContext {
  parameter(name: string): Value;
  /** The array's sizes after the outermost (i64), computed where they dominate the fast path. */
  sizes(array: ScopArray): readonly Value[];
  /** Attaches alias scopes and access groups to a load or store standing for an access to `array`. */
  decorate(inst: Instruction, array: ScopArray): void;
}

export interface PackingCodegen {
  /** Emits one instance (args: j, k) of the copy statement `name`; false when `name` is not a copy statement. */
  copy(name: string, args: readonly Value[], b: IrBuilder): boolean;
  /** The buffer loads standing for `st`'s packed loads in one instance (args: its counters). */
  reads(st: ScopStatementModel, args: readonly Value[], b: IrBuilder): Map<Value, Value>;
  /** An i1 made where the buffers were allocated: true when the allocation succeeded. */
  readonly allocated: Value;
  /** Frees the buffers; emitted where the fast path ends. */
  release(b: IrBuilder): void;
}

/** Line size the buffers and their rows are aligned to. */
const LINE = 64;

/** `@name` of `type`, declared if absent; the module's own declaration of another type cannot be called as ours. */
function libraryFunction(module: Module, name: string, type: FunctionType): IrFunction {
  const existing = getFunction(module, name);
  if (existing && !typesEqual(existing.functionType, type)) throw new UnsupportedCodeError(`packing needs @${name}, which the module declares with another type`);
  return getOrInsertFunction(module, name, type);
}

/** Function attributes a function calling malloc and free breaks. */
const ALLOCATION_FORBIDS = new Set(['nofree', 'argmemonly', 'inaccessiblememonly', 'inaccessiblemem_or_argmemonly', 'readonly', 'readnone', 'writeonly']);

/** Drops from `fn`'s attribute groups (clang's `#N`) the attributes a call to malloc or free breaks, spelling such a group out. */
function allowAllocation(fn: IrFunction): void {
  fn.suffix = fn.suffix.replace(/#\d+\b/g, (group) => {
    const words = [...attributeSet(fn.parent, group)];
    return words.some((w) => ALLOCATION_FORBIDS.has(w)) ? words.filter((w) => !ALLOCATION_FORBIDS.has(w)).join(' ') : group;
  });
}

/**
 * The emitters of `plans` (at least one), their buffers allocated by `at` (a block of its own
 * that only the check's success reaches: its `allocated` chooses between the fast path and the
 * original code).
 */
export function packingCodegen(module: Module, plans: readonly PackingPlan[], cx: PackingContext, at: IrBuilder): PackingCodegen {
  const i8p = pointerTo(i8);
  const malloc = libraryFunction(module, 'malloc', functionType(i8p, [i64]));
  const free = libraryFunction(module, 'free', functionType(voidType, [i8p]));
  allowAllocation(at.insertBlock!.parent!);
  // Per buffer: its element type, its first row and k, its row length (the row range padded to
  // whole lines) and its byte offset in the allocation: constants, or with parametric sizes values
  // computed in `at` from the parameters (computed in the check's block, which dominates it).
  const c = (v: number): Value => constInt(i64, v);
  const known = (v: Value): number | undefined => (v.kind === 'const-int' ? Number(v.value) : undefined);
  const fold = (x: Value, y: Value, op: 'add' | 'sub' | 'mul', f: (a: number, b: number) => number): Value => {
    const [a, b] = [known(x), known(y)];
    return a !== undefined && b !== undefined ? c(f(a, b)) : at[op](x, y);
  };
  const add = (x: Value, y: Value): Value => fold(x, y, 'add', (a, b) => a + b);
  const sub = (x: Value, y: Value): Value => fold(x, y, 'sub', (a, b) => a - b);
  const mul = (x: Value, y: Value): Value => fold(x, y, 'mul', (a, b) => a * b);
  /** x rounded up to a multiple of `m` (a power of two), x >= 0. */
  const roundUp = (x: Value, m: number): Value => {
    const a = known(x);
    return a !== undefined ? c(Math.ceil(a / m) * m) : at.and(at.add(x, c(m - 1)), c(-m));
  };
  const parameters = new AstExprEmitter(at, 64, (id) => cx.parameter(id));
  // Parametric extents above 2^28 (never met in practice) run the original code: the sizes' products then stay far inside i64.
  const fits: Value[] = [];
  /** max(0, hi - lo + 1), the extent of [lo, hi]. */
  const extent = (lo: Value, hi: Value): Value => {
    const n = add(sub(hi, lo), c(1));
    const v = known(n);
    if (v !== undefined) return c(Math.max(0, v));
    const clamped = at.select(at.icmp('sgt', n, c(0)), n, c(0));
    fits.push(at.icmp('sle', clamped, c(1 << 28)));
    return clamped;
  };
  let bytes: Value = c(0);
  const layout = plans.map((p) => {
    const type = p.access.instruction!.type;
    const size = allocSize(type);
    const o = p.operand;
    const range = (k: number, v: number | undefined): Value => (v !== undefined ? c(v) : parameters.value(p.ranges![k]!));
    const [rowMin, rowMax, kMin, kMax] = [range(0, o.rowMin), range(1, o.rowMax), range(2, o.kMin), range(3, o.kMax)];
    const perLine = Math.max(1, Math.floor(LINE / size));
    const rows = extent(rowMin, rowMax);
    const row = (perLine & (perLine - 1)) === 0 ? roundUp(rows, perLine) : rows;
    const offset = bytes;
    bytes = add(bytes, roundUp(mul(mul(row, extent(kMin, kMax)), c(size)), LINE));
    return { type, row, rowMin, kMin, offset };
  });
  // One allocation, its first line-aligned byte the first buffer's start; an extent too large asks
  // for SIZE_MAX bytes, which malloc refuses (so nothing is allocated that the fast path would not free).
  const total = add(bytes, c(LINE - 1));
  const raw = at.call(malloc, [fits.length === 0 ? total : at.select(fits.reduce((x, y) => at.and(x, y)), total, c(-1))], 'tsopt.pack.raw');
  const allocated = at.icmp('ne', raw, constNull(i8p));
  const skip = at.and(at.sub(constInt(i64, 0), at.cast('ptrtoint', raw, i64)), constInt(i64, LINE - 1));
  const base = at.gep(i8, raw, [skip], 'tsopt.pack');
  const buffers = layout.map((l) => at.bitcast(at.gep(i8, base, [l.offset]), pointerTo(l.type)));
  // The buffer's element of (row, k): [k - kMin][row - rowMin].
  const slot = (b: IrBuilder, n: number, j: Value, k: Value): Value => {
    const l = layout[n]!;
    const row = b.mul(b.sub(k, l.kMin), l.row);
    const offset = b.add(row, b.sub(j, l.rowMin));
    return b.gep(l.type, buffers[n]!, [offset]);
  };
  return {
    allocated,
    release(b) {
      b.call(free, [raw]);
    },
    copy(stmt, args, b) {
      const n = plans.findIndex((p) => p.operand.pack === stmt);
      if (n < 0) return false;
      const plan = plans[n]!;
      const type: Type = plan.access.instruction!.type;
      const lookup = (id: string): Value => {
        const k = /^__i(\d+)$/.exec(id);
        return k ? args[Number(k[1])]! : cx.parameter(id);
      };
      const e = new AstExprEmitter(b, 64, lookup);
      const array = plan.access.array;
      const value = b.load(type, elementAddress(b, array, type, plan.subscripts.map((s) => e.value(s)), cx.sizes(array)));
      cx.decorate(value, array);
      let stored: Value = value;
      if (plan.fold) {
        const product = cloneInstruction(plan.fold.mul);
        setOperand(product, plan.fold.slot, value);
        stored = b.insert(product, 'tsopt.pack.product');
      }
      cx.decorate(b.store(stored, slot(b, n, args[0]!, args[1]!)), array);
      return true;
    },
    reads(st, args, b) {
      const loaded = new Map<Value, Value>();
      plans.forEach((p, n) => {
        if (p.statement !== st) return;
        const original = p.access.instruction!;
        const load = b.load(original.type, slot(b, n, args[p.operand.row]!, args[p.operand.roles.k]!));
        cx.decorate(load, p.access.array);
        // A folded product stands for the fmul; the statement's own load is then dead.
        loaded.set(p.fold?.mul ?? original, load);
      });
      return loaded;
    },
  };
}

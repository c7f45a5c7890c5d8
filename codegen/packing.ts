// The matmul path's packed operands in the fast path (transform/matmul.ts, PackedOperand).
// The schedule tree holds, per packed read, a copy statement Pack_n[j, k] (an extension before
// each Mc loop); here it loads the operand's element of (j, k) where the statement reads it
// and stores it in a buffer laid out [k][j], and the matmul statement's packed load reads the
// buffer instead: stride 1 along the micro-kernel's vectorized j, one row per k.
//
// The buffer is an internal global of the statement's whole j x k range, indexed by the global
// j and k (an affine address, which opt's vectorizer needs): each copy fills the part of one
// Nc x Kc block, so blocks the jc loop runs on different threads write apart. It is static
// storage: a fast path running twice at once (recursion, two threads calling the function)
// would share it; the matmul path runs in OpenMP-free code or forks inside the SCoP only.
import { AstBuild, readAstExpr, type AstExprTree } from 'isl-wasm';
import {
  addGlobalVariable, arrayOf, constInt, i64, IrBuilder, pointerTo, setInitializer, zeroInitializer,
  type GlobalVariable, type Instruction, type Module, type Type, type Value,
} from '../ir';
import { AstExprEmitter } from './ast-expr';
import { counterName, elementAddress } from './mapped-accesses';
import type { ScopAccess, ScopArray, ScopModel, ScopStatementModel } from '../polyhedral/model';
import type { PackedOperand } from '../transform/matmul';

/** One packed read, ready for code generation (plain data: no isl object). */
export interface PackingPlan {
  readonly operand: PackedOperand;
  readonly statement: ScopStatementModel;
  readonly access: ScopAccess;
  /** The read's element at (j, k): subscripts over counterName(0) = j, counterName(1) = k. */
  readonly subscripts: readonly AstExprTree[];
}

/** The plans of `operands`. Call inside `ctx.scope` (and the quota): the isl objects made here are temporaries. */
export function planPacking(model: ScopModel, operands: readonly PackedOperand[]): PackingPlan[] {
  const ctx = model.ctx;
  return operands.map((operand) => {
    const st = model.statements.find((s) => s.name === operand.statement)!;
    const access = st.accesses[operand.access]!;
    const xs = st.loops.map((_, k) => `x${k}`);
    const [j, k] = [counterName(0), counterName(1)];
    // [j, k] -> { [] -> S[x..] : x_j = j and x_k = k }: the instances reading the element of (j, k)
    const instances = ctx.map(`[${j}, ${k}] -> { [] -> ${st.name}[${xs.join(', ')}] : x${operand.roles.j} = ${j} and x${operand.roles.k} = ${k} }`)
      .intersectRange(st.domain.intersectParams(model.context));
    // [j, k] -> { [] -> MemRef_B[o..] }: one element (the read is invariant along i)
    const element = instances.applyRange(access.relation.intersectDomain(st.domain));
    const at = element.range().lexminPwMultiAff();
    const build = AstBuild.fromContext(element.domain().params());
    const subscripts = Array.from({ length: element.range().tupleDim() }, (_, d) => readAstExpr(build.exprFromPwAff(at.getAt(d))));
    return { operand, statement: st, access, subscripts };
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
}

/** The buffers (globals of `module`) and the emitters of `plans`. */
export function packingCodegen(module: Module, name: string, plans: readonly PackingPlan[], cx: PackingContext): PackingCodegen {
  const buffers = plans.map((p) => {
    const type = p.access.instruction!.type;
    const o = p.operand;
    const g: GlobalVariable = addGlobalVariable(module, `${name}.${o.pack}`, arrayOf(type, (o.jMax - o.jMin + 1) * (o.kMax - o.kMin + 1)), { suffix: ', align 64' });
    setInitializer(g, zeroInitializer(g.valueType));
    return g;
  });
  // The buffer's element of (j, k): [k - kMin][j - jMin].
  const slot = (b: IrBuilder, n: number, j: Value, k: Value): Value => {
    const o = plans[n]!.operand;
    const type = plans[n]!.access.instruction!.type;
    const row = b.mul(b.sub(k, constInt(i64, o.kMin)), constInt(i64, o.jMax - o.jMin + 1));
    const at = b.add(row, b.sub(j, constInt(i64, o.jMin)));
    return b.gep(type, b.bitcast(buffers[n]!, pointerTo(type)), [at]);
  };
  return {
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
      cx.decorate(b.store(value, slot(b, n, args[0]!, args[1]!)), array);
      return true;
    },
    reads(st, args, b) {
      const loaded = new Map<Value, Value>();
      plans.forEach((p, n) => {
        if (p.statement !== st) return;
        const original = p.access.instruction!;
        const load = b.load(original.type, slot(b, n, args[p.operand.roles.j]!, args[p.operand.roles.k]!));
        cx.decorate(load, p.access.array);
        loaded.set(original, load);
      });
      return loaded;
    },
  };
}

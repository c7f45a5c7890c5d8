// The one-thread order of time tiles in wavefronts (--parallel; transform/time-tiling.ts,
// `oneThreadSchedule`): the tiles of one wavefront share out over the threads, but one thread
// running them in wavefront order reuses less between consecutive tiles than in time band order
// (heat-3d at PolyBench LARGE: 9% more time than single-thread tscc). So the fast path holds both
// trees' code and picks one as it starts:
//
//   one = omp_in_parallel() || omp_get_max_threads() < 2      (the runtime would give one thread)
//   if (one) the tiles in time band order, at the single-thread height   (single-thread tscc's code)
//   else     the tiles in wavefronts, each wavefront's tiles on the threads
//
// Both run every statement instance once in an order the dependences allow (each tree is checked
// against every dependence), computing each instance as the original does: the results are those
// of clang -O3 either way.
import type { AstNodeTree } from 'isl-wasm';
import { constInt, functionType, getOrInsertFunction, intType, type IrBuilder, type Module, type Value } from '../ir';

const i32 = intType(32);

/** The AST name of the flag: not an isl identifier (isl names parameters after the model's, iterators c0, c1, ...). */
export const oneThreadFlag = 'tsopt.one_thread';

/** `if (one thread) oneThread else threads` as one AST. */
export function oneThreadAst(oneThread: AstNodeTree, threads: AstNodeTree): AstNodeTree {
  return { kind: 'if', cond: { kind: 'op', op: 'eq', args: [{ kind: 'id', name: oneThreadFlag }, { kind: 'int', value: 1n }] }, then: oneThread, else: threads };
}

/** The two trees of `oneThreadAst`'s AST, or undefined for any other AST. */
export function oneThreadBranches(ast: AstNodeTree): { oneThread: AstNodeTree; threads: AstNodeTree } | undefined {
  if (ast.kind !== 'if' || !ast.else || ast.cond.kind !== 'op' || ast.cond.args[0]?.kind !== 'id' || ast.cond.args[0].name !== oneThreadFlag) return undefined;
  return { oneThread: ast.then, threads: ast.else };
}

/** The flag as an i64 (1: the runtime would give this code one thread) at the builder's position. */
export function emitOneThread(module: Module, b: IrBuilder): Value {
  const runtime = (name: string) => getOrInsertFunction(module, name, functionType(i32, []));
  const inParallel = b.icmp('ne', b.call(runtime('omp_in_parallel'), [], 'omp.in'), constInt(i32, 0));
  const few = b.icmp('slt', b.call(runtime('omp_get_max_threads'), [], 'omp.max'), constInt(i32, 2));
  return b.zext(b.or(inParallel, few, 'one.thread'), intType(64));
}

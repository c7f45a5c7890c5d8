// `force-fast-path`: after `versioning`, every run-time check is replaced by a volatile load of
// a global that holds `true`, so the fast path always runs while the slow path stays in the
// function (same code size, same register pressure) and the check's own instructions become
// dead. Only for measuring what the check costs (bench/check-cost.ts: instructions executed with
// the check minus with it forced); the program is wrong whenever a check would have failed.
import { IrBuilder, InstFlag, addGlobalVariable, constInt, intType, setInitializer, setOperand, type BasicBlock, type GlobalVariable, type Module } from '../ir';
import type { ModulePass } from './pass';

/** Versioning's fast-path entry blocks (passes/versioning.ts names them `tsopt.scopN.fast`). */
const FAST_ENTRY = /^tsopt\.scop\d+\.fast$/;

function trueFlag(m: Module): GlobalVariable {
  const g = addGlobalVariable(m, 'tsopt.force.fast.path', intType(1), { prefix: 'internal', suffix: ', align 1' });
  setInitializer(g, constInt(intType(1), 1));
  return g;
}

export const forceFastPathPass: ModulePass = {
  name: 'force-fast-path',
  description: "benchmarks only: versioning's run-time checks replaced by an opaque true, so the fast path always runs (wrong code when a check would fail)",
  run(module, ctx) {
    let flag: GlobalVariable | undefined;
    let forced = 0;
    for (const fn of module.functions) {
      for (const block of fn.blocks) {
        const t = block.instructions[block.instructions.length - 1];
        if (t?.opcode !== 'br' || t.operands.length !== 3) continue;
        const fast = t.operands[1] as BasicBlock;
        if (fast.kind !== 'block' || !FAST_ENTRY.test(fast.name ?? '')) continue;
        flag ??= trueFlag(module);
        const load = new IrBuilder().positionBefore(t).load(intType(1), flag, 'tsopt.forced', 1);
        load.flags |= InstFlag.Volatile;
        setOperand(t, 0, load);
        forced++;
      }
    }
    ctx.stats.set('forced', forced);
    return forced > 0 ? 'none' : 'all';
  },
};

// A pass that rewrites each defined function on its own before the SCoPs (`sink-stores`,
// `hoist-loads`, `last-index`): its on/off option, its count in --stats, a remark per function it
// changed, and 'none' preserved when it changed one (the CLI hands a module every pass preserved
// to opt as read).
import type { IrFunction, Module } from '../ir/types';
import { booleanOption, type FunctionAnalysisManager, type ModulePass, type PassOption } from './pass';

export interface FunctionRewrite {
  readonly name: string;
  readonly description: string;
  readonly option: PassOption;
  /** What --stats counts, and the remark's words for one and for several. */
  readonly counted: string;
  readonly remark: (n: number) => string;
  /** Rewrites `fn`; how many places it changed. */
  readonly rewrite: (fn: IrFunction, m: Module, am: FunctionAnalysisManager) => number;
}

export function functionRewritePass(r: FunctionRewrite): ModulePass {
  return {
    name: r.name,
    description: r.description,
    options: [r.option],
    run(module, ctx) {
      if (!booleanOption(ctx, r.option, true)) return 'all';
      let changed = false;
      for (const fn of module.functions) {
        if (fn.isDeclaration) continue;
        const n = r.rewrite(fn, module, ctx.am);
        if (n === 0) continue;
        changed = true;
        ctx.am.invalidate(fn, 'none');
        ctx.stats.set(r.counted, (ctx.stats.get(r.counted) ?? 0) + n);
        ctx.remarks.push({ pass: r.name, kind: 'applied', function: fn.name, location: fn.name, message: r.remark(n) });
      }
      return changed ? 'none' : 'all';
    },
  };
}

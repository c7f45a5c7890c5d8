// Before the passes: checked accessors called in loops are inlined (issue 22). uBLAS's
// bounds-checked builds call `unbounded_array::operator[]` and `basic_row_major::element` in
// every loop that indexes a matrix: -O3 leaves them out of line (their error path prints to
// std::cerr), and a call that may throw keeps its loop out of every SCoP. Inlined, the check is a
// branch into error blocks that detection assumes away behind the run-time check; the loads of
// the sizes and the data pointer, now in the loop, are hoisted out by LICM, as nothing the loop
// does on its way back to the header writes them (the error path leaves the loop).
//
// How: the accessors (analysis/checked-accessors.ts) are marked `alwaysinline`, and opt-14 runs
// LLVM's inliner with a clean-up; the module is parsed again. Modules without such calls in
// loops are left as they are (no opt run).
import { checkedAccessorsCalledInLoops } from '../analysis/checked-accessors';
import { type IrFunction, type Module, parseModule, printModule } from '../ir';
import { readInput, runOptPipeline, writeOutput } from '../ir/gateway';
import { booleanOption, type PassContext, type PassOption } from './pass';

export const inlineCheckedAccessorsOption: PassOption = {
  name: 'inline-checked-accessors',
  description: 'before the passes, inline functions that loops call whose only way to return computes a value without side effects, every other path an error path (bounds-checked accessors that print and throw, as uBLAS\'s without BOOST_UBLAS_NDEBUG), so those loops can be SCoPs with the error paths assumed away behind the run-time check (default true)',
};

/**
 * What runs after the inlining: the clean-up of the inlined code (SROA, CSE, instcombine,
 * simplifycfg) and LICM, which hoists the accessors' loads of sizes and data pointers out of the
 * loops, where detection sees them as parameters and array bases.
 */
export const inlineCheckedPipeline =
  'always-inline,function(sroa,early-cse<memssa>,instcombine,simplifycfg,loop-mssa(licm),gvn,instcombine,simplifycfg)';

function markAlwaysInline(fn: IrFunction): void {
  // The suffix holds the function attributes (`#9`, `unnamed_addr`, `comdat`, ...); an attribute
  // written beside the group is merged with it.
  fn.suffix = /#[0-9]+/.test(fn.suffix) ? fn.suffix.replace(/#[0-9]+/, (g) => `alwaysinline ${g}`) : `${fn.suffix} alwaysinline`;
}

export interface InlinedAccessors {
  /** The module to run the passes on: `m` itself when nothing was inlined. */
  readonly module: Module;
  /** The accessors inlined, by name. */
  readonly inlined: readonly string[];
}

/**
 * Inlines the checked accessors `m`'s loops call (unless `--inline-checked-accessors=false`).
 * Returns the module parsed from opt's output, or `m` when there was nothing to inline.
 */
export function inlineCheckedAccessors(m: Module, ctx: Pick<PassContext, 'options'>, name: string): InlinedAccessors {
  if (!booleanOption(ctx, inlineCheckedAccessorsOption, true)) return { module: m, inlined: [] };
  const accessors = checkedAccessorsCalledInLoops(m);
  if (accessors.length === 0) return { module: m, inlined: [] };
  for (const fn of accessors) markAlwaysInline(fn);
  const bitcode = writeOutput(printModule(m), 'bc', name);
  const text = readInput(runOptPipeline(bitcode, inlineCheckedPipeline, 'bc'), name);
  return { module: parseModule(text, name), inlined: accessors.map((f) => f.name) };
}

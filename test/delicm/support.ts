// DeLICM on our C kernels as tsopt sees them (clang-14 -O3, vectorizers off):
// only the kernel function is modelled, in-process, to keep the suite short.
import { parseModule } from '../../ir';
import { AnalysisManager } from '../../analysis/analysis-manager';
import { buildFunctionModels, defaultDelinearizer } from '../../polyhedral/analysis';
import { defaultMaxOperations } from '../../polyhedral/build';
import { type DelicmScopResult, defaultDelicmMaxOperations, runDelicm } from '../../transform/delicm';
import type { ScopModel } from '../../polyhedral/model';
import { compileKernelToIr } from '../support/kernels';
import { disassemble } from '../support/tools';

export const O3 = ['-O3', '-fno-vectorize', '-fno-slp-vectorize'];

export interface KernelDelicm {
  readonly results: readonly DelicmScopResult[];
  dispose(): void;
}

/** DeLICM on every SCoP of `kernel_<name>` (dashes as underscores; `kernel_listingN` for delicm-listingN). */
export function delicmKernel(name: string, options: { maxOperations?: number; function?: string } = {}): KernelDelicm {
  const module = parseModule(disassemble(compileKernelToIr(name, O3)), `${name}.ll`);
  const fnName = options.function ?? `kernel_${name.replace(/^delicm-/, '').replace(/-/g, '_')}`;
  const fn = module.functions.find((f) => f.name === fnName);
  if (!fn) throw new Error(`${name}: no function ${fnName}`);
  const models = buildFunctionModels(fn, new AnalysisManager(), { maxOperations: defaultMaxOperations, delinearize: defaultDelinearizer });
  const results = models.models.map((m) => runDelicm(m, { maxOperations: options.maxOperations ?? defaultDelicmMaxOperations }));
  return { results, dispose: () => models.dispose() };
}

/** Per loop depth, the dependence kinds its loops carry (`RAW (array)`, ...), sorted: comparable across kernels. */
export function carriedByDepth(m: ScopModel): Record<number, string[]> {
  const out: Record<number, Set<string>> = {};
  for (const loop of m.loops) {
    const kinds = (out[loop.depth] ??= new Set());
    for (const k of m.dependences.carried.get(loop) ?? []) kinds.add(k);
  }
  return Object.fromEntries(Object.entries(out).map(([d, s]) => [d, [...s].sort()]));
}

/** Depths of the loops the dependences leave parallel, one entry per loop, in the model's order. */
export function parallelDepths(m: ScopModel): number[] {
  return m.dependences.parallelLoops.map((l) => l.depth);
}

// Building the polyhedral model of our C kernels, as tsopt sees them: clang-14 -O3
// with the vectorizers off (and -g, for source names), parsed by our IR parser.
import { type IrFunction, type Module, parseModule } from '../../ir';
import { AnalysisManager } from '../../analysis/analysis-manager';
import { buildFunctionModels, defaultDelinearizer } from '../../polyhedral/analysis';
import { defaultMaxOperations } from '../../polyhedral/build';
import type { FunctionScopModels } from '../../polyhedral/model';
import { compileKernelToIr } from '../support/kernels';
import { disassemble } from '../support/tools';

export const O3 = ['-O3', '-fno-vectorize', '-fno-slp-vectorize'];

export interface ModelledKernel {
  readonly module: Module;
  readonly am: AnalysisManager;
  /** The models of the kernel function: `options.function`, else `kernel_<name>` (dashes as underscores). */
  readonly kernel: FunctionScopModels;
  readonly all: ReadonlyMap<string, FunctionScopModels>;
  dispose(): void;
}

export interface ModelKernelOptions {
  readonly vla?: boolean;
  /** Compile with -g (source names for parameters and arrays); default true. */
  readonly debug?: boolean;
  readonly delinearize?: boolean;
  readonly maxOperations?: number;
  /** The function to call `kernel` (default `kernel_<name>`). */
  readonly function?: string;
}

export function kernelIr(name: string, options: ModelKernelOptions = {}): Module {
  const flags = [...O3, ...(options.debug === false ? [] : ['-g'])];
  return parseModule(disassemble(compileKernelToIr(name, flags, { vla: options.vla })), `${name}.ll`);
}

export function modelKernel(name: string, options: ModelKernelOptions = {}): ModelledKernel {
  const module = kernelIr(name, options);
  const am = new AnalysisManager();
  const all = new Map<string, FunctionScopModels>();
  const modelOptions = {
    maxOperations: options.maxOperations ?? defaultMaxOperations,
    delinearize: options.delinearize === false ? undefined : defaultDelinearizer,
  };
  for (const fn of module.functions) {
    if (fn.isDeclaration) continue;
    all.set(fn.name, buildFunctionModels(fn, am, modelOptions));
  }
  const kernelName = options.function ?? `kernel_${name.replace(/-/g, '_')}`;
  const kernel = all.get(kernelName);
  if (!kernel) throw new Error(`${name}: no function ${kernelName}`);
  return { module, am, kernel, all, dispose: () => all.forEach((f) => f.dispose()) };
}

export function functionNamed(module: Module, name: string): IrFunction {
  const fn = module.functions.find((f) => f.name === name);
  if (!fn) throw new Error(`no function @${name}`);
  return fn;
}

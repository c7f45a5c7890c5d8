// The pass host: turns `--passes=a,b,c` into passes from the registry and runs them,
// one fresh context per pass, so statistics and remarks come out instead of piling up in globals.
import type { Module } from '../ir';
import { InvalidModuleError, TsoptError } from '../ir/errors';
import { AnalysisManager } from '../analysis/analysis-manager';
import type { ModulePass, PassContext, Preserved, Remark, ScopResult } from './pass';
import type { ModuleBudget } from '../polyhedral/module-budget';
import { moduleBudgetFrom } from './module-budget-options';

/** `--passes=none`: parse, verify and print, nothing else. */
export const IDENTITY_PIPELINE = 'none';

/** The passes named in `spec`, in order; unknown names give a one-line error listing the known ones. */
export function parsePipeline(spec: string, registry: ReadonlyMap<string, ModulePass>): ModulePass[] {
  const names = spec.split(',').map((n) => n.trim());
  if (names.length === 1 && names[0] === IDENTITY_PIPELINE) return [];
  return names.map((name) => {
    if (name === '') throw new TsoptError(`empty pass name in --passes=${spec}`);
    if (name === IDENTITY_PIPELINE) throw new TsoptError(`'none' cannot be combined with other passes in --passes=${spec}`);
    const pass = registry.get(name);
    if (!pass) {
      throw new TsoptError(`unknown pass '${name}' in --passes (known: ${[...registry.keys()].join(', ')})`);
    }
    return pass;
  });
}

export type Logger = PassContext['log'];

export interface PipelineOptions {
  /** `--name=value` options for the passes. */
  readonly options: ReadonlyMap<string, string>;
  readonly log: Logger;
  /** Run `verify` after every pass and name the pass that broke the module. */
  readonly verifyEach: boolean;
  /** LLVM's verdict on the module: undefined when valid, else one line saying what is wrong. */
  readonly verify: (module: Module) => string | undefined;
  /**
   * The analysis manager the passes share; give one to reuse what was computed before the
   * pipeline (the CLI's report of the input models). Default: a fresh one.
   */
  readonly am?: AnalysisManager;
  /** The module's budget, when the caller shares it (the CLI's report); default: one from `options`. */
  readonly moduleBudget?: ModuleBudget;
}

export interface PassTiming {
  readonly pass: string;
  readonly ms: number;
  readonly preserved: string;
}

export interface PipelineResult {
  /** `<pass>.<statistic>` → count, summed over the runs of each pass. */
  readonly stats: Map<string, number>;
  readonly remarks: Remark[];
  /** What the passes published per SCoP, in the order they published it. */
  readonly scopResults: ScopResult[];
  readonly timings: PassTiming[];
  readonly analyses: AnalysisManager['counts'];
}

function describePreserved(p: Preserved): string {
  return typeof p === 'string' ? p : [...p].join(',') || 'none';
}

export function runPipeline(module: Module, passes: readonly ModulePass[], opts: PipelineOptions): PipelineResult {
  const am = opts.am ?? new AnalysisManager();
  const result: PipelineResult = { stats: new Map(), remarks: [], scopResults: [], timings: [], analyses: am.counts };
  const moduleBudget = opts.moduleBudget ?? moduleBudgetFrom(opts.options);
  for (const pass of passes) {
    const ctx: PassContext = { am, options: opts.options, stats: new Map(), remarks: [], scopResults: [], moduleBudget, log: opts.log };
    const start = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    const preserved = pass.run(module, ctx);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    const cpu = process.cpuUsage(cpuStart);
    am.invalidateAll(preserved);
    for (const [stat, n] of ctx.stats) {
      const key = `${pass.name}.${stat}`;
      result.stats.set(key, (result.stats.get(key) ?? 0) + n);
    }
    result.remarks.push(...ctx.remarks);
    result.scopResults.push(...ctx.scopResults);
    result.timings.push({ pass: pass.name, ms, preserved: describePreserved(preserved) });
    opts.log.debug({ pass: pass.name, ms: Math.round(ms * 1000) / 1000, cpuMs: Math.round((cpu.user + cpu.system) / 100) / 10, preserved: describePreserved(preserved) }, 'pass finished');
    if (opts.verifyEach) {
      const problem = opts.verify(module);
      if (problem !== undefined) throw new InvalidModuleError(`pass '${pass.name}' broke the module: ${problem}`);
    }
  }
  return result;
}

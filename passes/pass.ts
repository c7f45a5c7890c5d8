// The contract between the pass host, the passes and the analyses.
// Modelled on LLVM's new pass manager: a pass says what it preserved, and the
// host drops every cached analysis that it did not preserve.
import type { ModuleBudget } from '../polyhedral/module-budget';
import type { Module } from '../ir';
import type { FunctionAnalysisManager, Preserved } from '../analysis/analysis-manager';
import { TsoptError } from '../ir/errors';
import type { FastPathVectorization } from './vectorized';

export type { AnalysisKey, FunctionAnalysisManager, Preserved } from '../analysis/analysis-manager';

/** A remark a pass makes about the code (like LLVM's -Rpass remarks). */
export interface Remark {
  readonly pass: string;
  readonly kind: 'applied' | 'missed' | 'analysis';
  readonly function: string;
  /** file:line when debug info gives it, else the IR block or value name. */
  readonly location: string;
  readonly message: string;
}

/**
 * What a pass did to one SCoP, for `--report`: `fields` are merged into the report's entry
 * for the SCoP at `location` (the model's `location`) in `function`, e.g. the versioning
 * pass's `runtimeCheck` and `codeGrowth`. Field names are part of the report's contract.
 */
export interface ScopResult {
  readonly pass: string;
  readonly function: string;
  readonly location: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

export interface PassContext {
  readonly am: FunctionAnalysisManager;
  /** Options given on the command line (`--name=value`), by name; passes read their own. */
  readonly options: ReadonlyMap<string, string>;
  /** Per-pass statistics, counted up by the passes and shown with --stats. */
  readonly stats: Map<string, number>;
  readonly remarks: Remark[];
  /** Per-SCoP results for the report (see ScopResult). */
  readonly scopResults: ScopResult[];
  /** The whole module's isl budget (polyhedral/module-budget.ts), shared by every pass of a run. */
  readonly moduleBudget?: ModuleBudget;
  /** A structured logger (pino); never writes to stdout. */
  readonly log: {
    debug(obj: object | string, msg?: string): void;
    info(obj: object | string, msg?: string): void;
    warn(obj: object | string, msg?: string): void;
  };
}

/** A `--name=value` option a pass reads from `PassContext.options`; `--help` lists it. */
export interface PassOption {
  readonly name: string;
  readonly description: string;
}

/**
 * The value of a numeric pass option (`--name=N`), or `fallback` when not given. A bad value is
 * the user's error (one line, exit 1), not tsopt's.
 */
export function nonNegativeIntegerOption(ctx: Pick<PassContext, 'options'>, option: PassOption, fallback: number): number {
  const raw = ctx.options.get(option.name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < 0) throw new TsoptError(`--${option.name} wants a non-negative integer, not '${raw}'`);
  return n;
}

/**
 * The value of a boolean pass option: `--name` or `--name=true` is true, `--name=false` false,
 * `fallback` when not given; any other value is the user's error (one line, exit 1).
 */
export function booleanOption(ctx: Pick<PassContext, 'options'>, option: PassOption, fallback: boolean): boolean {
  const raw = ctx.options.get(option.name);
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '') return true;
  if (raw === 'false') return false;
  throw new TsoptError(`--${option.name} wants true or false, not '${raw}'`);
}

export interface ModulePass {
  /** The name used in `--passes=` and in `--help`. */
  readonly name: string;
  readonly description: string;
  /** The command-line options this pass reads; the CLI rejects options no pass declares. */
  readonly options?: readonly PassOption[];
  run(module: Module, ctx: PassContext): Preserved;
}

/** What a stage after opt-14 is given (`AfterOptStage`). */
export interface AfterOptContext {
  /** Options given on the command line (`--name=value`), by name. */
  readonly options: ReadonlyMap<string, string>;
  /** What the passes published per SCoP; a stage adds its own results here. */
  readonly scopResults: ScopResult[];
}

/**
 * A named stage that decides on opt-14's output, once the post pipeline ran (profitability).
 * `before` runs on the module the passes made, before it goes to opt, and marks what `after`
 * will decide on; `after` runs on opt's output. Registered in registry.ts beside the passes.
 */
export interface AfterOptStage<State = unknown> {
  readonly name: string;
  readonly description: string;
  /** The command-line options this stage reads (declared by a pass too, or listed with it). */
  readonly options?: readonly PassOption[];
  /** Marks `module` for `after`; what `after` needs, or undefined when the stage has nothing to do. */
  before(module: Module, ctx: AfterOptContext): State | undefined;
  /**
   * Decides on opt's output `module` (read back), given what opt vectorized of each fast path
   * (passes/vectorized.ts), and changes it; true when `cleanupPipeline` must run on it.
   */
  after(module: Module, state: State, ctx: AfterOptContext, fastPaths: ReadonlyMap<string, FastPathVectorization>): boolean;
  /** The opt-14 pipeline that cleans up after `after` changed the module. */
  readonly cleanupPipeline: string;
}

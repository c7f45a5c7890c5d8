// `tsopt --report=FILE`: what tsopt found in each function, per the contract in
// issue 4. JSON field names are a contract other tools rely on; later issues
// add fields, never rename these:
//   {"functions":[{"name","scops":[{"location","depth","statements","parameters",
//     "arrays":[{"name","elementBytes","shape"}],"assumptions","aliasPairs",
//     "parallelLoops","runtimeCheck"}],"rejected":[{"cause","location","detail"}]}]}
import type { IrFunction, Module } from '../ir';
import { defaultDelinearizer, scopModelAnalysisWith } from '../polyhedral/analysis';
import { type Delinearizer, defaultMaxOperations } from '../polyhedral/build';
import type { FunctionScopModels, ScopModel } from '../polyhedral/model';
import type { FunctionAnalysisManager } from './pass';

export interface ReportArray {
  readonly name: string;
  readonly elementBytes: number;
  /** Outermost first, C expressions over the function's parameters; `*` for an unknown outermost size. */
  readonly shape: string[];
}

export interface ReportScop {
  readonly location: string;
  readonly depth: number;
  readonly statements: number;
  readonly parameters: string[];
  readonly arrays: ReportArray[];
  /** C expressions over the function's parameters, one per kind of assumption. */
  readonly assumptions: string[];
  readonly aliasPairs: [string, string][];
  /** Loops that carry no dependence: `file:line` with debug info, else the header block (`%for.body`). */
  readonly parallelLoops: string[];
  /** The one condition under which the SCoP's fast path is valid, as a C expression ("1": always). */
  readonly runtimeCheck: string;
}

export interface ReportRejection {
  readonly cause: string;
  readonly location: string;
  readonly detail: string;
}

export interface ReportFunction {
  readonly name: string;
  readonly scops: ReportScop[];
  readonly rejected: ReportRejection[];
}

export interface TsoptReport {
  readonly functions: ReportFunction[];
}

export interface ReportOptions {
  /** isl operations per SCoP (`--isl-max-operations`). */
  readonly maxOperations?: number;
  /** Default: delinearization as in issue 5; `false` keeps flat arrays flat. */
  readonly delinearize?: Delinearizer | false;
  /**
   * The SCoP's combined run-time check as C (issue 6 plugs in alias checks + assumptions
   * here); default: the conjunction of the model's assumptions.
   */
  readonly runtimeCheck?: (model: ScopModel) => string;
}

/** The conjunction of C conditions, `1` when there is none. */
export function conjunction(parts: readonly string[]): string {
  const real = parts.filter((p) => p !== '1');
  if (real.includes('0')) return '0';
  if (real.length === 0) return '1';
  return real.length === 1 ? real[0]! : real.map((p) => `(${p})`).join(' && ');
}

export function reportScop(m: ScopModel, options: ReportOptions = {}): ReportScop {
  const byValue = new Map(m.arrays.map((a) => [a.value, a.name] as const));
  const assumptions = m.assumptions.map((a) => a.c);
  return {
    location: m.location,
    depth: m.depth,
    statements: m.statements.length,
    parameters: m.parameters.map((p) => p.name),
    arrays: m.arrays.filter((a) => a.kind === 'array').map((a) => ({ name: a.name, elementBytes: a.elementBytes, shape: [...a.shape] })),
    assumptions,
    aliasPairs: m.scop.aliasPairs.map((p) => [byValue.get(p.a) ?? p.aName, byValue.get(p.b) ?? p.bName]),
    parallelLoops: m.dependences.parallelLoops.map((l) => m.loopLabels.get(l) ?? l.loop.headerName),
    runtimeCheck: options.runtimeCheck ? options.runtimeCheck(m) : conjunction(assumptions),
  };
}

export function reportFunction(fn: IrFunction, models: FunctionScopModels, options: ReportOptions = {}): ReportFunction {
  return {
    name: fn.name,
    scops: models.models.map((m) => reportScop(m, options)),
    rejected: models.rejections.map((r) => ({ cause: r.cause, location: r.location, detail: r.detail })),
  };
}

export function buildReport(module: Module, am: FunctionAnalysisManager, options: ReportOptions = {}): TsoptReport {
  const delinearize = options.delinearize === false ? undefined : (options.delinearize ?? defaultDelinearizer);
  const analysis = scopModelAnalysisWith({ maxOperations: options.maxOperations ?? defaultMaxOperations, delinearize });
  return {
    functions: module.functions.filter((fn) => !fn.isDeclaration).map((fn) => reportFunction(fn, am.get(analysis, fn), options)),
  };
}

export function formatReport(r: TsoptReport, format: 'json' | 'text'): string {
  if (format === 'json') return JSON.stringify(r, null, 2) + '\n';
  const lines: string[] = [];
  for (const f of r.functions) {
    lines.push(`function ${f.name}: ${f.scops.length} SCoP${f.scops.length === 1 ? '' : 's'}, ${f.rejected.length} rejected region${f.rejected.length === 1 ? '' : 's'}`);
    for (const s of f.scops) {
      lines.push(`  SCoP at ${s.location}: depth ${s.depth}, ${s.statements} statement${s.statements === 1 ? '' : 's'}`);
      lines.push(`    parameters: ${s.parameters.join(', ') || '(none)'}`);
      for (const a of s.arrays) lines.push(`    array ${a.name}${a.shape.map((d) => `[${d}]`).join('')} of ${a.elementBytes}-byte elements`);
      for (const a of s.assumptions) lines.push(`    assumes ${a}`);
      for (const [a, b] of s.aliasPairs) lines.push(`    may alias: ${a} and ${b}`);
      lines.push(`    parallel loops: ${s.parallelLoops.join(', ') || '(none)'}`);
      lines.push(`    run-time check: ${s.runtimeCheck}`);
    }
    for (const x of f.rejected) lines.push(`  rejected at ${x.location}: ${x.cause}: ${x.detail}`);
  }
  return lines.join('\n') + '\n';
}

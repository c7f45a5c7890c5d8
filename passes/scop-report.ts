// `tsopt --report=FILE`: what tsopt found in each function. JSON field names are a
// contract other tools rely on; fields are added, never renamed:
//   {"functions":[{"name","scops":[{"location","depth","statements","parameters",
//     "arrays":[{"name","elementBytes","shape"}],"assumptions","aliasPairs",
//     "parallelLoops","runtimeCheck"}],"rejected":[{"cause","location","detail"}]}]}
// Delinearization adds, per array, "accesses":[{"kind","subscripts"}] and, for a
// delinearized array, "validity"; per SCoP, "delinearization" (the merged condition).
import { conjunction } from '../codegen/check-emit';
import type { IrFunction, Module } from '../ir';
import { defaultDelinearizer, scopModelAnalysisWith } from '../polyhedral/analysis';
import { type Delinearizer, defaultMaxOperations } from '../polyhedral/build';
import type { Map as IslMap } from 'isl-wasm';
import type { Scop } from '../analysis/scop-detection-types';
import { describeErrorEdges } from '../analysis/error-blocks';
import { delinearizationAnalysis, type FunctionDelinearizations } from '../polyhedral/delinearization/analysis';
import type { ScopDelinearization } from '../polyhedral/delinearization/scop-adapter';
import type { FunctionScopModels, ScopModel } from '../polyhedral/model';
import type { FunctionAnalysisManager } from './pass';
import type { ModuleBudget } from '../polyhedral/module-budget';

export interface ReportArray {
  readonly name: string;
  readonly elementBytes: number;
  /** Outermost first, C expressions over the function's parameters; `*` for an unknown outermost size. */
  readonly shape: string[];
  /** Each access in program order: `read`/`write` and its subscripts (`[i0 + o0][i1]`, counters i0 outermost). */
  readonly accesses: ReportAccess[];
  /**
   * Delinearized arrays only: the condition (C over the function's parameters) under
   * which the recovered shape is exact, `1` when it holds statically.
   */
  readonly validity?: string;
}

export interface ReportAccess {
  readonly kind: 'read' | 'write';
  /**
   * C subscripts, outermost first, over the parameters and the statement's counters
   * i0 (outermost SCoP loop), i1, ...; isl's relation where it is no function.
   */
  readonly subscripts: string;
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
  /**
   * Every delinearized array's validity merged, C over the function's
   * parameters, `1` when it holds statically. Part of `runtimeCheck` (through the
   * model's `delinearization` assumption), shown apart for people.
   */
  readonly delinearization: string;
  /** Error blocks the model assumes are never entered (C++ throws, abort paths), with the block that branches to each; absent when none. */
  readonly errorBlocks?: string[];
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
  /** The SCoP's isl budget over all steps (`--scop-max-operations`, polyhedral/budget.ts). */
  readonly scopMaxOperations?: number;
  /** The module's budget (polyhedral/module-budget.ts), shared with the passes of the run. */
  readonly moduleBudget?: ModuleBudget;
  /** Default: the shared delinearization; `false` keeps flat arrays flat. */
  readonly delinearize?: Delinearizer | false;
  /**
   * The SCoP's combined run-time check as C (versioning gives alias checks and
   * assumptions); default: the conjunction of the model's assumptions.
   */
  readonly runtimeCheck?: (model: ScopModel) => string;
}


/**
 * `delinearization`: what delinearization found for this SCoP, when the model used it
 * (the shared `delinearizationAnalysis` result; see `polyhedral/delinearization/analysis.ts`).
 */
export function reportScop(m: ScopModel, options: ReportOptions = {}, delinearization?: ScopDelinearization): ReportScop {
  const byValue = new Map(m.arrays.map((a) => [a.value, a.name] as const));
  const assumptions = m.assumptions.map((a) => a.c);
  const found = new Map((delinearization?.arrays ?? []).map((a) => [a.base, a] as const));
  const arrays = m.arrays.filter((a) => a.kind === 'array').map((a): ReportArray => {
    const d = a.delinearized ? found.get(a.value) : undefined;
    const accesses = m.statements.flatMap((s) => s.accesses.filter((x) => x.array === a)).map((x): ReportAccess => {
      const subscripts = x.instruction ? d?.subscripts.get(x.instruction) : undefined;
      return { kind: x.kind, subscripts: subscripts ? subscripts.map((f) => `[${f}]`).join('') : relationSubscripts(x.relation) };
    });
    const base = { name: a.name, elementBytes: a.elementBytes, shape: [...a.shape], accesses };
    return d ? { ...base, validity: d.condition ?? '1' } : base;
  });
  const delinearized = m.arrays.some((a) => a.delinearized);
  return {
    location: m.location,
    depth: m.depth,
    statements: m.statements.length,
    parameters: m.parameters.map((p) => p.name),
    arrays,
    assumptions,
    aliasPairs: m.scop.aliasPairs.map((p) => [byValue.get(p.a) ?? p.aName, byValue.get(p.b) ?? p.bName]),
    parallelLoops: m.dependences.parallelLoops.map((l) => m.loopLabels.get(l) ?? l.loop.headerName),
    runtimeCheck: options.runtimeCheck ? options.runtimeCheck(m) : conjunction(assumptions),
    delinearization: delinearized && delinearization ? (delinearization.condition ?? '1') : modelDelinearization(m),
    ...(m.scop.errorBlocks?.length ? { errorBlocks: describeErrorEdges(m.scop, m.scop.entry.parent!) } : {}),
  };
}

/** The model's own `delinearization` assumption in C (a delinearizer other than the shared one). */
function modelDelinearization(m: ScopModel): string {
  return m.assumptions.find((a) => a.kind === 'delinearization')?.c ?? '1';
}

/**
 * `[i0][1 + i1]` from isl's `{ S[i0, i1] -> MemRef_A[i0, 1 + i1] }` when the relation is
 * one affine function; otherwise the relation itself (a may access, a flat access
 * covering several elements).
 */
function relationSubscripts(relation: IslMap): string {
  const text = relation.toString();
  const m = /^(?:\[[^\]]*\] -> )?\{ [A-Za-z0-9_]+\[[^\]]*\] -> [A-Za-z0-9_]+\[(.*)\] \}$/.exec(text);
  if (!m || /[:;]/.test(m[1]!)) return text;
  const parts = splitTopLevel(m[1]!);
  // `o0 = i0 + 1`: isl names the dimension when the text did.
  const exprs = parts.map((p) => p.replace(/^[A-Za-z_][A-Za-z0-9_']* = /, ''));
  if (exprs.some((e) => /^[A-Za-z_][A-Za-z0-9_]*'$/.test(e) || /^o[0-9]+$/.test(e))) return text;
  // isl writes `2i1`; C wants `2 * i1`.
  return exprs.map((e) => `[${e.replace(/([0-9])([A-Za-z_(])/g, '$1 * $2')}]`).join('');
}

function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let k = 0; k < s.length; k++) {
    const ch = s[k];
    if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(s.slice(start, k).trim());
      start = k + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out;
}

export function reportFunction(fn: IrFunction, models: FunctionScopModels, options: ReportOptions = {}, delinearizations?: Pick<FunctionDelinearizations, 'get'>): ReportFunction {
  return {
    name: fn.name,
    scops: models.models.map((m) => reportScop(m, options, delinearizations?.get(m.scop))),
    rejected: models.rejections.map((r) => ({ cause: r.cause, location: r.location, detail: r.detail })),
  };
}

export function buildReport(module: Module, am: FunctionAnalysisManager, options: ReportOptions = {}): TsoptReport {
  const delinearize = options.delinearize === false ? undefined : (options.delinearize ?? defaultDelinearizer);
  const analysis = scopModelAnalysisWith({ maxOperations: options.maxOperations ?? defaultMaxOperations, scopMaxOperations: options.scopMaxOperations, delinearize, moduleBudget: options.moduleBudget });
  return {
    functions: module.functions.filter((fn) => !fn.isDeclaration).map((fn) => {
      // The model used the shared delinearization exactly when `delinearize` is the default.
      const shared = delinearize === defaultDelinearizer ? am.get(delinearizationAnalysis, fn) : undefined;
      const reported = reportFunction(fn, am.get(analysis, fn), options, shared);
      // With a module budget (the CLI's), memory stays proportional to one function: its analyses and
      // models are freed once reported, and a pass needing them rebuilds them (the budget admitted the function already).
      if (options.moduleBudget) am.invalidate(fn, 'none');
      return reported;
    }),
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
      for (const a of s.arrays) {
        lines.push(`    array ${a.name}${a.shape.map((d) => `[${d}]`).join('')} of ${a.elementBytes}-byte elements${a.validity === undefined ? '' : a.validity === '1' ? ', delinearized' : `, delinearized, valid if ${a.validity}`}`);
        for (const x of a.accesses) lines.push(`      ${x.kind} ${a.name}${x.subscripts}`);
      }
      for (const a of s.assumptions) lines.push(`    assumes ${a}`);
      for (const [a, b] of s.aliasPairs) lines.push(`    may alias: ${a} and ${b}`);
      lines.push(`    parallel loops: ${s.parallelLoops.join(', ') || '(none)'}`);
      if (s.delinearization !== '1') lines.push(`    delinearization valid if ${s.delinearization}`);
      for (const e of s.errorBlocks ?? []) lines.push(`    assumes not entered: error block ${e}`);
      lines.push(`    run-time check: ${s.runtimeCheck}`);
    }
    for (const x of f.rejected) lines.push(`  rejected at ${x.location}: ${x.cause}: ${x.detail}`);
  }
  return lines.join('\n') + '\n';
}

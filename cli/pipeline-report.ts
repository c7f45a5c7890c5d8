// `--report=FILE` (`-`: stderr). The report of the INPUT module (passes/scop-report.ts:
// per function its SCoPs and rejected regions), each SCoP carrying what the passes then did
// to it, plus the pipeline's timings, statistics and remarks under "pipeline":
//   {"functions":[{"name","scops":[{...the input's fields, "delicm"?, "remarks"?, ...fields the
//     passes published (versioning: "runtimeCheck", its parts, "codeGrowth"), and for a versioned
//     SCoP after the post pipeline "vectorized", "vectorizedLoops", "vectorWidths"}],"rejected":[...]}],
//    "pipeline":{"input","output","passes","stats","remarks","analyses",
//      "post":{"pipeline","ms","vectorized":[{"pass","function","location","message"}]},"totalMs"}}
// The SCoPs are modelled before the pipeline, in the analysis manager the passes then reuse,
// so the report costs nothing a pass would not compute anyway.
import type { Module } from '../ir';
import type { OptRemark } from '../ir/gateway';
import type { AnalysisManager } from '../analysis/analysis-manager';
import { delicmAnalysisFor, delicmMaxOperationsFrom } from '../passes/delicm';
import { modelAnalysisFrom, modelOptionsFrom } from '../passes/scop-passes';
import type { Remark, ScopResult } from '../passes/pass';
import type { PipelineResult } from '../passes/pipeline';
import { buildReport, formatReport, type ReportFunction, type ReportScop, type TsoptReport } from '../passes/scop-report';
import type { DelicmScopResult } from '../transform/delicm';
import { notVectorized, type FastPathVectorization } from '../passes/vectorized';
import { fastPathName } from '../codegen/metadata';
import type { ModuleBudget, ModuleBudgetSummary } from '../polyhedral/module-budget';
import { conjunction, describeValue, publishedFieldLines, remarkText } from './report-text';

export type ReportFormat = 'json' | 'text';

/** DeLICM's result for one SCoP, as the `delicm` pass computed it. */
export interface ReportDelicm {
  readonly forwards: number;
  readonly reloads: number;
  readonly mappedScalars: number;
  readonly mappedPhis: number;
  readonly scalarWritesBefore: number;
  readonly scalarWritesAfter: number;
  /** `MemRef_x -> MemRef_A`: each scalar or PHI location and the array it now lives in. */
  readonly mappings: string[];
  /** Why the SCoP was left unchanged (a quota), if it was. */
  readonly unchanged?: string;
}

export interface ReportScopRemark {
  readonly pass: string;
  readonly kind: Remark['kind'];
  readonly message: string;
}

/** One SCoP: the input's fields, then what the passes did to it. */
export type CliReportScop = ReportScop & {
  delicm?: ReportDelicm;
  remarks?: ReportScopRemark[];
  [published: string]: unknown;
};

export interface PipelineReport {
  readonly input: string;
  readonly output: string;
  readonly passes: { pass: string; ms: number; preserved: string }[];
  readonly stats: Record<string, number>;
  /** Remarks about no SCoP of the report (those about one are on that SCoP). */
  readonly remarks: Remark[];
  /** Results a pass published for a SCoP the input report does not have. */
  readonly unplacedScopResults?: ScopResult[];
  readonly analyses: { computed: number; reused: number; invalidated: number };
  /** The module's isl budget: limits, spending, and the SCoPs and functions it left untouched. */
  readonly moduleBudget?: ModuleBudgetSummary;
  /** The opt-14 hand-back; `vectorized`: each loop (loop-vectorize) or tree (slp-vectorizer) opt vectorized. */
  readonly post: { pipeline: string; ms: number; vectorized: VectorizedRemark[] } | null;
  readonly totalMs: number;
}

export interface VectorizedRemark {
  readonly pass: string;
  readonly function: string;
  /** `file:line` with debug info, else null. */
  readonly location: string | null;
  readonly message: string;
}

export interface CliReport {
  readonly functions: (Omit<ReportFunction, 'scops'> & { scops: CliReportScop[] })[];
  readonly pipeline: PipelineReport;
}

/** What the report needs from the options given to the passes. */
export interface ReportPassOptions {
  readonly passOptions: ReadonlyMap<string, string>;
  readonly passes: readonly string[];
  /** The run's module budget, which the passes spend from too. */
  readonly moduleBudget?: ModuleBudget;
}

/** The input's SCoP report, taken before any pass runs; results land in `am` for the passes. */
export interface InputReport {
  readonly scops: TsoptReport;
  /** Per function name, DeLICM's result per SCoP (in the report's order), when `delicm` runs. */
  readonly delicm: ReadonlyMap<string, readonly DelicmScopResult[]> | undefined;
}

export function reportInput(module: Module, am: AnalysisManager, o: ReportPassOptions): InputReport {
  // The options as the passes parse them, and so the same keys, so they share the cache.
  const { moduleBudget } = o;
  const given = { options: o.passOptions, moduleBudget };
  const { maxOperations, scopMaxOperations } = modelOptionsFrom(given);
  const scops = buildReport(module, am, { maxOperations, scopMaxOperations, moduleBudget });
  let delicm: Map<string, readonly DelicmScopResult[]> | undefined;
  if (o.passes.includes('delicm')) {
    const analysis = delicmAnalysisFor(modelAnalysisFrom(given), delicmMaxOperationsFrom(given));
    delicm = new Map(module.functions.filter((fn) => !fn.isDeclaration).map((fn) => [fn.name, am.get(analysis, fn).scops] as const));
  }
  return { scops, delicm };
}

function reportDelicm(r: DelicmScopResult): ReportDelicm {
  const base = { ...r.counters, mappings: r.mappings.map((m) => `${m.location} -> ${m.target}`) };
  return r.unchanged === undefined ? base : { ...base, unchanged: r.unchanged };
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

export interface RunFacts {
  readonly input: string;
  readonly output: string;
  readonly postPipeline: string | undefined;
  readonly postMs: number | undefined;
  readonly totalMs: number;
  /** What opt-14's vectorizers said in the post pipeline. */
  readonly optRemarks: readonly OptRemark[];
  /** What opt-14 vectorized of each fast path (by fastPathName), when the post pipeline ran on versioned SCoPs. */
  readonly fastPaths?: ReadonlyMap<string, FastPathVectorization>;
  readonly moduleBudget?: ModuleBudgetSummary;
}

/** The input's report with what the pipeline did merged in. */
export function mergeReport(input: InputReport, pipeline: PipelineResult, facts: RunFacts): CliReport {
  const functions = input.scops.functions.map((f) => {
    const delicm = input.delicm?.get(f.name);
    const scops = f.scops.map((s, k): CliReportScop => {
      const d = delicm?.[k];
      return d && d.original.location === s.location ? { ...s, delicm: reportDelicm(d) } : { ...s };
    });
    return { ...f, scops };
  });
  /** The SCoP of `fn` at `location`; the n-th such when several share a location. */
  const find = (fn: string, location: string, n: number): CliReportScop | undefined =>
    functions.find((f) => f.name === fn)?.scops.filter((s) => s.location === location)[n];
  const seen = new Map<string, number>();
  const unplaced: ScopResult[] = [];
  for (const r of pipeline.scopResults) {
    const key = `${r.pass}\0${r.function}\0${r.location}`;
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    const scop = find(r.function, r.location, n);
    if (scop) Object.assign(scop, r.fields);
    else unplaced.push(r);
  }
  if (facts.fastPaths) {
    for (const f of functions) {
      for (const s of f.scops) if (s.versioned === true) Object.assign(s, facts.fastPaths.get(fastPathName(f.name, s.location)) ?? notVectorized);
    }
  }
  const unplacedRemarks: Remark[] = [];
  for (const r of pipeline.remarks) {
    const scop = find(r.function, r.location, 0);
    if (scop) (scop.remarks ??= []).push({ pass: r.pass, kind: r.kind, message: r.message });
    else unplacedRemarks.push(r);
  }
  return {
    functions,
    pipeline: {
      input: facts.input,
      output: facts.output === '-' ? '<stdout>' : facts.output,
      passes: pipeline.timings.map((t) => ({ ...t, ms: round(t.ms) })),
      stats: Object.fromEntries(pipeline.stats),
      remarks: unplacedRemarks,
      ...(unplaced.length > 0 ? { unplacedScopResults: unplaced } : {}),
      analyses: { ...pipeline.analyses },
      ...(facts.moduleBudget ? { moduleBudget: facts.moduleBudget } : {}),
      post: facts.postPipeline === undefined ? null : {
        pipeline: facts.postPipeline,
        ms: round(facts.postMs ?? 0),
        vectorized: facts.optRemarks.filter((m) => m.kind === 'Passed').map((m) => ({ pass: m.pass, function: m.function, location: m.location ?? null, message: m.message })),
      },
      totalMs: round(facts.totalMs),
    },
  };
}

/** The input's fields print through passes/scop-report.ts; this adds the passes' part, in words (cli/report-text.ts). */
function passesText(r: CliReport): string[] {
  const lines: string[] = [];
  const standard = new Set(['location', 'depth', 'statements', 'parameters', 'arrays', 'assumptions', 'aliasPairs', 'parallelLoops', 'runtimeCheck', 'delinearization', 'delicm', 'remarks', 'errorBlocks']);
  for (const f of r.functions) {
    for (const s of f.scops) {
      const extra = Object.entries(s).filter(([k]) => !standard.has(k));
      if (!s.delicm && !s.remarks && extra.length === 0) continue;
      lines.push(`  ${f.name}, SCoP at ${s.location}:`);
      lines.push(...publishedFieldLines(extra, s.runtimeCheck, '    '));
      if (s.delicm) {
        const d = s.delicm;
        lines.push(`    delicm: forwards ${d.forwards}, reloads ${d.reloads}, mapped scalars ${d.mappedScalars}, mapped PHIs ${d.mappedPhis}, scalar writes in loops ${d.scalarWritesBefore} -> ${d.scalarWritesAfter}`);
        for (const m of d.mappings) lines.push(`      mapped ${m}`);
        if (d.unchanged) lines.push(`      unchanged: ${d.unchanged}`);
      }
      const parts = Array.isArray(s.runtimeCheckParts) ? conjunction(s.runtimeCheckParts as { label: string; c: string }[]) : undefined;
      const checks = parts === undefined ? [s.runtimeCheck] : [s.runtimeCheck, parts];
      for (const m of s.remarks ?? []) lines.push(`    ${m.kind}: [${m.pass}] ${remarkText(m.message, checks)}`);
    }
  }
  return lines;
}

function pipelineText(p: PipelineReport): string[] {
  const lines = [`pipeline: ${p.input} -> ${p.output}`, '  passes:'];
  if (p.passes.length === 0) lines.push('    (none)');
  for (const t of p.passes) lines.push(`    ${t.pass}: ${t.ms} ms (preserved: ${t.preserved})`);
  const stats = Object.entries(p.stats);
  lines.push('  statistics:');
  if (stats.length === 0) lines.push('    (none)');
  for (const [k, v] of stats) lines.push(`    ${k} = ${v}`);
  if (p.remarks.length > 0) lines.push('  other remarks:');
  for (const m of p.remarks) lines.push(`    ${m.location}: ${m.kind}: [${m.pass}] ${m.function}: ${m.message}`);
  for (const u of p.unplacedScopResults ?? []) lines.push(`  ${u.pass} on ${u.function} at ${u.location} (no such SCoP in the input): ${describeValue(u.fields)}`);
  const a = p.analyses;
  lines.push(`  analyses: ${a.computed} computed, ${a.reused} reused, ${a.invalidated} invalidated`);
  const b = p.moduleBudget;
  if (b) {
    const limit = b.operationsLimit > 0 ? `of ${b.operationsLimit}` : '(no limit)';
    const left = b.exhaustedBy ? `; ran out (${b.exhaustedBy}): ${b.untouchedScops} SCoPs in ${b.untouchedFunctions} functions left untouched` : '';
    const transformLimit = b.transformOperationsLimit > 0 ? `of ${b.transformOperationsLimit}` : '(no limit)';
    lines.push(`  module budget: ${b.modellingOperations} isl operations for modelling ${limit}, ${b.transformOperations} for transforming ${transformLimit} (${b.operationsSpent} in all)${left}`);
  }
  lines.push(p.post ? `  post pipeline (opt-14): ${p.post.ms} ms, ${p.post.vectorized.length} vectorized` : '  post pipeline: off');
  for (const v of p.post?.vectorized ?? []) lines.push(`    ${v.location ?? '(no location)'}: [${v.pass}] ${v.function}: ${v.message}`);
  lines.push(`  total: ${p.totalMs} ms`);
  return lines;
}

export function formatCliReport(r: CliReport, format: ReportFormat): string {
  if (format === 'json') return JSON.stringify(r, null, 2) + '\n';
  const done = passesText(r);
  const parts = [formatReport({ functions: r.functions }, 'text').trimEnd()];
  if (done.length > 0) parts.push(['what the passes did:', ...done].join('\n'));
  parts.push(pipelineText(r.pipeline).join('\n'));
  return parts.filter((p) => p !== '').join('\n') + '\n';
}

// `--report=FILE`: what the passes did (timings, statistics, remarks), as JSON or text.
import { writeFileAtomically } from './atomic-write';
import type { RunOptions, RunSummary } from './run';

export type ReportFormat = 'json' | 'text';

export interface Report {
  readonly input: string;
  readonly output: string;
  readonly passes: { pass: string; ms: number; preserved: string }[];
  readonly stats: Record<string, number>;
  readonly remarks: { pass: string; kind: string; function: string; location: string; message: string }[];
  readonly analyses: { computed: number; reused: number; invalidated: number };
  readonly post: { pipeline: string; ms: number } | null;
  readonly totalMs: number;
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

export function buildReport(inputName: string, opts: RunOptions, summary: RunSummary): Report {
  const p = summary.pipeline;
  return {
    input: inputName,
    output: opts.output === '-' ? '<stdout>' : opts.output,
    passes: p.timings.map((t) => ({ ...t, ms: round(t.ms) })),
    stats: Object.fromEntries(p.stats),
    remarks: p.remarks.map((r) => ({ ...r })),
    analyses: { ...p.analyses },
    post: opts.postPipeline === undefined ? null : { pipeline: opts.postPipeline, ms: round(summary.postMs ?? 0) },
    totalMs: round(summary.totalMs),
  };
}

export function formatReportText(r: Report): string {
  const lines = [`tsopt report for ${r.input} -> ${r.output}`, 'passes:'];
  if (r.passes.length === 0) lines.push('  (none)');
  for (const t of r.passes) lines.push(`  ${t.pass}: ${t.ms} ms (preserved: ${t.preserved})`);
  lines.push('statistics:');
  const stats = Object.entries(r.stats);
  if (stats.length === 0) lines.push('  (none)');
  for (const [k, v] of stats) lines.push(`  ${k} = ${v}`);
  lines.push('remarks:');
  if (r.remarks.length === 0) lines.push('  (none)');
  for (const m of r.remarks) lines.push(`  ${m.location}: ${m.kind}: [${m.pass}] ${m.function}: ${m.message}`);
  const a = r.analyses;
  lines.push(`analyses: ${a.computed} computed, ${a.reused} reused, ${a.invalidated} invalidated`);
  lines.push(r.post ? `post pipeline (opt-14): ${r.post.ms} ms` : 'post pipeline: off');
  lines.push(`total: ${r.totalMs} ms`);
  return lines.join('\n') + '\n';
}

export function writeReport(file: string, format: ReportFormat, inputName: string, opts: RunOptions, summary: RunSummary): void {
  const report = buildReport(inputName, opts, summary);
  const text = format === 'json' ? JSON.stringify(report, null, 2) + '\n' : formatReportText(report);
  writeFileAtomically(file, text);
}

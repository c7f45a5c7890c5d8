// Writing benchmark results: results.json (everything), results.csv (one row per suite,
// program and variant), and chart.svg / chart.png (speedup over clang -O3, geometric mean last).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ProgramResult, SuiteResult, Tolerance, VariantResult } from './harness';
import { sameCodeLine } from './same-code';
import { BASELINE, formatBand, formatP, LIMIT, noiseBand, type SignTestRule } from './noise';

export interface BenchRun {
  date: string;
  /** PolyBench's and uBLAS's dataset; null when the run had neither suite. */
  dataset: string | null;
  /** --tiny: our kernels timed at their test sizes. */
  tiny?: boolean;
  /** --threads N: OpenMP variants ran with N threads. */
  threads?: number;
  /** --limit: OpenBLAS's configuration and the kernel it ran (openblas_get_config/corename), or why it could not be asked. */
  openblas?: { config: string; corename: string; threads: number } | { error: string };
  /** Per suite and program, the size it was timed at (its size defines and arguments). */
  sizes?: Record<string, Record<string, string>>;
  /** os.loadavg() (1, 5, 15 minutes) at the start and the end, and the cores. */
  load?: { cores: number; start: number[]; end: number[] };
  /** Versions: tsopt, llvm, isl, node and each variant's compiler (its --version's first line). */
  tools?: Record<string, string>;
  /** What makes the timings doubtful (a busy machine); printed on stderr too. */
  warnings?: string[];
  repeat: number;
  /** --min-repeat: a program's rounds stopped after at least this many once its verdicts at `repeat` were decided. */
  minRepeat?: number;
  /** The sign test's rule for this run: level, comparisons, threshold, rounds needed (bench/noise.ts). */
  statistics?: SignTestRule;
  tolerances: Record<string, Tolerance>;
  variants: { name: string; command: string }[];
  notes: string[];
  suites: SuiteResult[];
}

const csvField = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

export function toCsv(run: BenchRun): string {
  const rows = [['suite', 'program', 'variant', 'status', 'median_s', 'speedup_vs_clang_O3', 'speedup_vs_polly', 'runs', 'detail', 'check_instructions', 'check_share',
    'speedup_round_min', 'speedup_round_max', 'verdict', 'p_slower', 'p_faster', 'process_median_s', 'share_of_limit',
    'vs_polly_round_min', 'vs_polly_round_max', 'vs_polly_verdict', 'vs_polly_p_slower']];
  for (const suite of run.suites) {
    for (const p of suite.programs) {
      const cost = p.checkCost && !('error' in p.checkCost) ? p.checkCost : undefined;
      for (const v of run.variants) {
        const r = p.variants[v.name];
        if (!r) continue;
        // The check's cost is measured on tscc builds (bench/check-cost.ts): it goes on tscc's row.
        const costCells = v.name === 'tscc' && cost ? [String(cost.checkInstructions), cost.share.toExponential(2)] : ['', ''];
        rows.push([suite.name, p.name, v.name, r.status, r.median?.toPrecision(6) ?? '', r.speedup?.toFixed(4) ?? '', r.vsPolly?.toFixed(4) ?? '',
          String(r.times.length), r.detail ?? '', ...costCells, r.spread?.[0].toFixed(4) ?? '', r.spread?.[1].toFixed(4) ?? '', r.verdict ?? '',
          r.pSlower?.toPrecision(4) ?? '', r.pFaster?.toPrecision(4) ?? '', r.processMedian?.toPrecision(6) ?? '', r.vsLimit?.toFixed(4) ?? '',
          r.againstPolly?.spread[0].toFixed(4) ?? '', r.againstPolly?.spread[1].toFixed(4) ?? '', r.againstPolly?.verdict ?? '', r.againstPolly?.pSlower.toPrecision(4) ?? '']);
      }
    }
    for (const v of run.variants) {
      const g = suite.geomean[v.name];
      rows.push([suite.name, 'geomean', v.name, g === undefined ? 'none' : 'ok', '', g?.toFixed(4) ?? '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '']);
    }
  }
  return rows.map((r) => r.map(csvField).join(',')).join('\n') + '\n';
}

const COLORS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#b07aa1', '#9c755f'];
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** One bar group per program (and the geometric mean), one bar per variant other than clang. */
export function toSvg(run: BenchRun): string {
  const shown = run.variants.filter((v) => v.name !== BASELINE);
  const barW = 12;
  const groupW = shown.length * barW + 14;
  const plotH = 220;
  const panelH = plotH + 120;
  const left = 60;
  const width = Math.max(760, left + 20 + Math.max(...run.suites.map((s) => (s.programs.length + 1) * groupW)));
  const out: string[] = [];
  const height = 50 + run.suites.length * panelH;
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="DejaVu Sans, sans-serif" font-size="11">`);
  out.push(`<rect width="${width}" height="${height}" fill="white"/>`);
  out.push(`<text x="${left}" y="20" font-size="14" font-weight="bold">Speedup over clang-14 -O3 -march=native (median of ${run.repeat} interleaved runs; log scale)</text>`);
  shown.forEach((v, i) => {
    const x = left + i * 130;
    out.push(`<rect x="${x}" y="30" width="10" height="10" fill="${COLORS[i % COLORS.length]}"/>`);
    out.push(`<text x="${x + 14}" y="39">${esc(v.name)}</text>`);
  });
  run.suites.forEach((suite, si) => {
    const top = 60 + si * panelH;
    // A log axis: 2x faster and 2x slower are as far from 1 (clang -O3), and one 6x bar does not
    // flatten the others. The axis spans powers of two around every bar and whisker.
    const values = [
      ...suite.programs.flatMap((p) => shown.flatMap((v) => {
        const r = p.variants[v.name];
        return [r?.speedup, ...(r?.spread ?? [])];
      })),
      ...shown.map((v) => suite.geomean[v.name]),
    ].filter((x): x is number => x !== undefined && x > 0);
    const lo = Math.min(-1, Math.floor(Math.log2(Math.min(...values, 1))));
    const hi = Math.max(1, Math.ceil(Math.log2(Math.max(...values, 1))));
    const y = (s: number) => top + 20 + plotH - ((Math.log2(s) - lo) / (hi - lo)) * plotH;
    out.push(`<text x="${left}" y="${top + 10}" font-size="13" font-weight="bold">${esc(suite.name)}</text>`);
    for (let e = lo; e <= hi; e++) {
      const t = 2 ** e;
      out.push(`<line x1="${left}" x2="${width - 10}" y1="${y(t)}" y2="${y(t)}" stroke="#ddd"/>`);
      out.push(`<text x="${left - 6}" y="${y(t) + 4}" text-anchor="end">${t >= 1 ? t : `1/${2 ** -e}`}x</text>`);
    }
    out.push(`<line x1="${left}" x2="${width - 10}" y1="${y(1)}" y2="${y(1)}" stroke="#333" stroke-width="1.5"/>`);
    out.push(`<text x="${width - 12}" y="${y(1) - 4}" text-anchor="end" fill="#333">1x = clang -O3</text>`);
    const groups = [...suite.programs.map((p) => ({ name: p.name, values: shown.map((v) => p.variants[v.name]) })),
      { name: 'geomean', values: shown.map((v): VariantResult => ({ speedup: suite.geomean[v.name], status: 'ok', times: [] })) }];
    groups.forEach((g, gi) => {
      const gx = left + 8 + gi * groupW;
      g.values.forEach((r, vi) => {
        const x = gx + vi * barW;
        if (r?.speedup !== undefined) {
          // Bars grow from 1: up when faster than clang -O3, down when slower.
          const [y0, y1] = [y(Math.max(r.speedup, 1)), y(Math.min(r.speedup, 1))];
          out.push(`<rect x="${x}" y="${y0}" width="${barW - 2}" height="${Math.max(y1 - y0, 1)}" fill="${COLORS[vi % COLORS.length]}"><title>${esc(`${g.name} ${shown[vi].name}: ${formatBand(r.speedup, r)}`)}</title></rect>`);
          // The per-round band (bench/noise.ts) as a whisker over the bar.
          if (r.spread) {
            const cx = x + (barW - 2) / 2;
            out.push(`<line x1="${cx}" x2="${cx}" y1="${y(r.spread[0])}" y2="${y(r.spread[1])}" stroke="#222"/>`);
          }
        } else {
          // A failed variant: a red cross on the 1x line instead of a bar.
          out.push(`<text x="${x + 1}" y="${y(1) + 4}" fill="#c00" font-size="10">x</text>`);
        }
      });
      const lx = gx + (shown.length * barW) / 2;
      out.push(`<text transform="translate(${lx},${top + 20 + plotH + 10}) rotate(45)" font-weight="${g.name === 'geomean' ? 'bold' : 'normal'}">${esc(g.name)}</text>`);
    });
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}

/** PNG of the SVG, rasterized by resvg (the @resvg/resvg-js package, its binary from the registry). */
export function svgToPng(svg: string): Buffer {
  // Loaded lazily so that the rest of the harness works without the native module.
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const { Resvg } = require('@resvg/resvg-js') as typeof import('@resvg/resvg-js');
  const r = new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' }, background: 'white' });
  return r.render().asPng();
}

export function writeReports(run: BenchRun, outDir: string): string[] {
  fs.mkdirSync(outDir, { recursive: true });
  const files = ['results.json', 'results.csv', 'chart.svg', 'chart.png'].map((f) => path.join(outDir, f));
  const svg = toSvg(run);
  fs.writeFileSync(files[0], JSON.stringify(run, null, 2) + '\n');
  fs.writeFileSync(files[1], toCsv(run));
  fs.writeFileSync(files[2], svg);
  fs.writeFileSync(files[3], svgToPng(svg));
  return files;
}

/** `12 (1.3e-4)` for a measured check cost, the reason otherwise. */
export function checkCostCell(cost: ProgramResult['checkCost']): string {
  if (!cost) return '-';
  if ('error' in cost) return `(${cost.error.slice(0, 40)})`;
  if (!cost.versioned) return 'no check';
  return `${cost.checkInstructions} (${cost.share.toExponential(1)})${cost.scope === 'program' ? ' prog' : ''}`;
}

/** `12 rounds`, or `3-12 rounds` when --min-repeat let programs stop early. */
export function roundsText(run: BenchRun): string {
  const n = run.minRepeat !== undefined ? `${run.minRepeat}-${run.repeat}` : String(run.repeat);
  return `${n} round${n === '1' ? '' : 's'}`;
}

/** `p < 0.05/54 = 0.00093`: the threshold every p-value of the run is held to. */
export function ruleText(rule: SignTestRule): string {
  return `p < ${rule.level}/${rule.comparisons} = ${formatP(rule.threshold)}`;
}

/**
 * `slower than clang -O3 beyond noise (sign test, p < 0.05/54 = 0.00093): tscc trmm 0.96x
 * [0.931-0.984] p=0.00049`, or `none`, saying so when some comparison had too few rounds to tell.
 */
export function slowerLine(run: BenchRun, suite: SuiteResult): string {
  const slower = suite.programs.flatMap((p) =>
    run.variants
      .filter((v) => p.variants[v.name]?.verdict === 'slower')
      .map((v) => `${v.name} ${p.name} ${formatBand(p.variants[v.name].speedup!, p.variants[v.name])} p=${formatP(p.variants[v.name].pSlower!)}`));
  const rule = run.statistics;
  const tooFew = suite.programs.some((p) => Object.values(p.variants).some((r) => r.verdict === 'too-few-rounds'));
  const note = rule && tooFew ? ` (${roundsText(run)}: at least ${rule.roundsNeeded} are needed to tell with ${rule.comparisons} comparison${rule.comparisons === 1 ? '' : 's'})` : '';
  const how = rule ? ` (sign test, ${ruleText(rule)})` : '';
  return `slower than clang -O3 beyond noise${how}: ${slower.length > 0 ? slower.join(', ') : 'none'}${note}`;
}

/**
 * `slower than Polly beyond noise (sign test, same rule): tscc adi 0.97x [0.950-0.990]
 * p=0.00024`, or `none`; undefined when no variant was compared with Polly.
 */
export function slowerThanPollyLine(suite: SuiteResult): string | undefined {
  const compared = suite.programs.flatMap((p) => Object.entries(p.variants).filter(([, r]) => r.againstPolly !== undefined).map(([v, r]) => ({ p: p.name, v, r })));
  if (compared.length === 0) return undefined;
  const slower = compared.filter(({ r }) => r.againstPolly!.verdict === 'slower')
    .map(({ p, v, r }) => `${v} ${p} ${formatBand(r.vsPolly!, r.againstPolly)} p=${formatP(r.againstPolly!.pSlower)}`);
  const tooFew = compared.some(({ r }) => r.againstPolly!.verdict === 'too-few-rounds');
  return `slower than Polly beyond noise (same sign test): ${slower.length > 0 ? slower.join(', ') : 'none'}${tooFew ? ' (some comparisons had too few rounds to tell)' : ''}`;
}

/** A time in three significant digits and a unit a person reads at a glance: `2.06s`, `41.3ms`, `850us`. */
export function formatSeconds(s: number): string {
  if (s >= 1) return `${s.toFixed(2)}s`;
  if (s >= 1e-3) return `${(s * 1e3).toPrecision(3)}ms`;
  return `${(s * 1e6).toPrecision(3)}us`;
}

/** Rows of cells as columns, each as wide as its widest cell, two spaces apart. */
function columns(rows: readonly string[][]): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, k) => (widths[k] = Math.max(widths[k] ?? 0, c.length)));
  return rows.map((r) => r.map((c, k) => c.padEnd(widths[k]! + 2)).join('').trimEnd());
}

/**
 * tscc's time over `other`'s: the median of the per-round ratios of the timed runs and their band
 * (`1.02x [0.970-1.050]`, bench/noise.ts), then the same median of the whole processes' CPU times
 * where perf counted them (`cpu 1.01x`: steadier on a loaded machine than PolyBench's printed wall
 * time, though it counts the program's set-up too), or `-`.
 */
function overTscc(plain: VariantResult | undefined, other: VariantResult | undefined): string {
  if (plain?.status !== 'ok' || other?.status !== 'ok') return '-';
  const middle = (xs: readonly number[]) => {
    const sorted = [...xs].sort((x, y) => x - y);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  const timed = noiseBand(plain.times, other.times);
  if (timed === undefined) return '-';
  const cpu = plain.processTimes && other.processTimes ? noiseBand(plain.processTimes, other.processTimes) : undefined;
  const text = formatBand(middle(timed.roundSpeedups), timed.roundSpeedups.length > 1 ? timed : undefined);
  return cpu === undefined ? text : `${text} cpu ${middle(cpu.roundSpeedups).toFixed(2)}x`;
}

/**
 * The table printed at the end: one row per program; clang -O3's median time, then each other
 * variant's speedup over it (`1.20x`: 1.2 times as fast), marked `<` when slower than clang -O3
 * beyond noise (bench/noise.ts); tsopt's variants' speedup over Polly; with --profile, tscc-prof's
 * speedup over tscc (`tscc-prof/tscc`: what the profile adds) and tscc-profgen's
 * (`tscc-profgen/tscc`: below 1, what the instrumentation costs), each with the band of its
 * per-round ratios; the check's cost
 * (instructions, and their share of the kernel's). Last, per suite, the geometric means and the
 * variants slower beyond noise with their bands and p-values. Each variant's band of per-round
 * speedups and p-values for every program are in results.csv.
 */
export function toTable(run: BenchRun): string {
  const lines: string[] = [];
  const ours = run.variants.filter((v) => v.name === 'tscc' || v.name === 'pipe');
  const others = run.variants.filter((v) => v.name !== BASELINE);
  lines.push(`speedup over clang -O3 (median of ${roundsText(run)}); < slower beyond noise${run.statistics ? ` (sign test, ${ruleText(run.statistics)})` : ''}; bands and p-values: results.csv`);
  for (const suite of run.suites) {
    lines.push(`\n${suite.name}`);
    // With the OpenBLAS limit: the share of its speed tscc reaches.
    const limit = run.variants.some((v) => v.name === LIMIT) ? ours.filter((v) => v.name === 'tscc') : [];
    // With --profile: tscc-prof's and tscc-profgen's speedups over tscc, what the profile gains and
    // what the instrumentation costs (same interleaved rounds).
    const profiled = ['tscc-prof', 'tscc-profgen'].filter((n) => ['tscc', n].every((m) => run.variants.some((v) => v.name === m)));
    const rows: string[][] = [['program', BASELINE, ...others.map((v) => v.name), ...ours.map((v) => `${v.name}/polly`), ...limit.map((v) => `${v.name}/limit`), ...profiled.map((n) => `${n}/tscc`), 'check (share)']];
    for (const p of suite.programs) {
      const base = p.variants[BASELINE];
      const baseCell = base?.status === 'ok' && base.median !== undefined ? formatSeconds(base.median) : base?.status ?? '-';
      const cells = others.map((v) => {
        const r = p.variants[v.name];
        if (!r || r.status !== 'ok') return r?.status ?? '-';
        return r.speedup === undefined ? '-' : `${r.speedup.toFixed(2)}x${r.verdict === 'slower' ? ' <' : ''}`;
      });
      const vsPolly = ours.map((v) => {
        const r = p.variants[v.name];
        return r?.vsPolly === undefined ? '-' : `${r.vsPolly.toFixed(2)}x${r.againstPolly?.verdict === 'slower' ? ' <' : ''}`;
      });
      const vsLimit = limit.map((v) => p.variants[v.name]?.vsLimit?.toFixed(2).concat('x') ?? '-');
      const vsPlain = profiled.map((n) => overTscc(p.variants.tscc, p.variants[n]));
      rows.push([p.name, baseCell, ...cells, ...vsPolly, ...vsLimit, ...vsPlain, checkCostCell(p.checkCost)]);
    }
    rows.push(['geomean', '', ...others.map((v) => suite.geomean[v.name]?.toFixed(2).concat('x') ?? '-')]);
    lines.push(...columns(rows));
    for (const [v, s] of Object.entries(suite.sameCode ?? {})) lines.push(sameCodeLine(v, s, suite.programs.length));
    lines.push(slowerLine(run, suite));
    const thanPolly = slowerThanPollyLine(suite);
    if (thanPolly) lines.push(thanPolly);
  }
  for (const w of run.warnings ?? []) lines.push(`\nwarning: ${w}`);
  return lines.join('\n') + '\n';
}

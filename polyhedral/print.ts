// Printing the model for tests and people, in the spirit of Polly's
// `-polly-print-scops` and `-polly-print-deps`: one line per isl object.
import { IslError } from 'isl-wasm';
import { accessedElements, formatLmad, lmadOf } from './lmad';
import type { FunctionScopModels, ScopAccess, ScopArray, ScopModel } from './model';

function accessLine(a: ScopAccess): string {
  const what = a.kind === 'read' ? 'ReadAccess' : a.certainty === 'must' ? 'MustWriteAccess' : 'MayWriteAccess';
  const certainty = a.kind === 'read' ? ` [${a.certainty}]` : '';
  const kind = a.array.kind === 'array' ? '' : ` [${a.array.kind === 'value' ? 'Scalar' : 'PHI'}]`;
  const note = a.approximation ? `  ; over-approximated: ${a.approximation}` : '';
  return `      ${what}${certainty}${kind} := ${a.relation.toString()}${note}`;
}

/** The array's LMAD over the whole SCoP (polyhedral/lmad.ts), or why there is none. */
function lmadLine(m: ScopModel, a: ScopArray): string {
  try {
    return m.ctx.scope(() => {
      const touched = accessedElements(m, a);
      return touched ? formatLmad(lmadOf(a, touched, { spans: true })) : '(not accessed)';
    });
  } catch (e) {
    if (e instanceof IslError) return `(isl: ${e.message})`;
    throw e;
  }
}

/** The whole model of one SCoP (what `print<scops>` shows). */
export function printScopModel(m: ScopModel): string {
  const lines: string[] = [];
  lines.push(`  SCoP at ${m.location} (depth ${m.depth}, ${m.statements.length} statements)`);
  lines.push(`    Parameters: ${m.parameters.map((p) => p.name).join(', ') || '(none)'}`);
  lines.push(`    Context: ${m.context.toString()}`);
  lines.push('    Assumptions:');
  if (m.assumptions.length === 0) lines.push('      (none)');
  for (const a of m.assumptions) lines.push(`      ${a.kind}: ${a.set.toString()}  ; ${a.c}`);
  lines.push('    Arrays:');
  for (const a of m.arrays) {
    const dims = a.kind === 'array' ? a.shape.map((s) => `[${s}]`).join('') : '';
    lines.push(`      ${a.tupleName}${dims}  ; ${a.kind} ${a.name}, ${a.elementBytes} bytes${a.delinearized ? ', delinearized' : ''}`);
    if (a.kind === 'array') lines.push(`        LMAD := ${lmadLine(m, a)}`);
  }
  lines.push('    Statements:');
  for (const s of m.statements) {
    lines.push(`    ${s.name}`);
    lines.push(`      Domain := ${s.domain.toString()}`);
    lines.push(`      Schedule := ${s.schedule.toString()}`);
    for (const a of s.accesses) lines.push(accessLine(a));
  }
  return lines.join('\n');
}

/**
 * Dependences and loop parallelism of one SCoP (what `print<dependences>` shows). The exact
 * relations are computed here, under the SCoP's budget: when it runs out, the parallel loops.
 */
export function printDependences(m: ScopModel): string {
  const d = m.dependences;
  const lines = [`  SCoP at ${m.location}`];
  const label = (loop: ScopModel['loops'][number]): string => `Loop ${loop.loop.headerName} (depth ${loop.depth}, ${m.loopLabels.get(loop) ?? loop.loop.headerName})`;
  try {
    for (const [kind, pair] of [['RAW', d.raw], ['WAR', d.war], ['WAW', d.waw]] as const) {
      lines.push(`    ${kind} dependences (array): ${pair.array.toString()}`);
      lines.push(`    ${kind} dependences (scalar): ${pair.scalar.toString()}`);
    }
  } catch (e) {
    if (!(e instanceof IslError)) throw e;
    lines.push(`    Exact dependences not computed (isl: ${e.message})`);
    for (const loop of m.loops) lines.push(`    ${label(loop)}: ${d.parallelLoops.includes(loop) ? 'parallel' : 'not parallel'}`);
    return lines.join('\n');
  }
  for (const loop of m.loops) {
    const kinds = d.carried.get(loop) ?? [];
    lines.push(`    ${label(loop)}: ${kinds.length === 0 ? 'parallel' : `carries ${kinds.join(', ')}`}`);
  }
  return lines.join('\n');
}

/** Every SCoP of a function, then its rejections. */
export function printFunctionModels(f: FunctionScopModels, body: (m: ScopModel) => string): string {
  const lines = [`Function: ${f.function.name}`];
  if (f.models.length === 0) lines.push('  (no SCoPs)');
  for (const m of f.models) lines.push(body(m));
  for (const r of f.rejections) lines.push(`  Rejected at ${r.location}: ${r.cause}: ${r.detail}`);
  return lines.join('\n') + '\n';
}

// `print<interchange>`: which nests the fast path runs interchanged (transform/interchange.ts),
// the new order of their statements, and the nests worth interchanging that are not, with why.
// A SCoP whose nests only scalars keep in order is planned again on DeLICM's model when
// versioning would take it (the lines after `DeLICM's model:`, scop-sources.ts), else the line
// says why not. Writes to stderr and changes nothing.
import type { Map as IslMap } from 'isl-wasm';
import { type InterchangePlan, nestLabel, planInterchange } from '../transform/interchange';
import type { ScopModel } from '../polyhedral/model';
import { delicmMaxOperationsOption } from './delicm';
import type { ModulePass, PassContext } from './pass';
import { maxOperationsOption, printerPass, scopMaxOperationsOption } from './scop-passes';
import { sourceFor } from './scop-sources';
import { codegenMaxOperationsFrom, codegenMaxOperationsOption } from './versioning';

/** `Stmt_S[i0, i1] -> [1, 1, i1, 1, i0, 0]`: isl's text of `m` without its parameters and braces. */
function mapBody(m: IslMap): string {
  return m.toStr().replace(/^\[[^\]]*\] -> /, '').replace(/^\{ (.*) \}$/, '$1');
}

function planLines(model: ScopModel, plan: InterchangePlan, indent: string): string[] {
  const lines: string[] = [];
  for (const n of plan.nests) {
    lines.push(`${indent}Interchanged: ${nestLabel(model, n)}`);
    for (const st of n.statements) lines.push(`${indent}  ${mapBody(plan.moved.get(st)!)}`);
  }
  for (const r of plan.refused) lines.push(`${indent}Refused: ${nestLabel(model, r)}: ${r.why}`);
  if (lines.length === 0) lines.push(`${indent}(no nest worth interchanging)`);
  return lines;
}

function printScop(model: ScopModel, ctx: PassContext): string {
  const lines = [`  SCoP at ${model.location}`];
  const byScalars = model.ctx.scope(() => {
    const p = planInterchange(model);
    lines.push(...planLines(model, p, '    '));
    return p.nests.length === 0 && p.refused.some((r) => r.byScalars);
  });
  if (byScalars) {
    const source = sourceFor(ctx, model, { interchange: true, maxOperations: codegenMaxOperationsFrom(ctx) });
    if (source.from === 'model') lines.push(`    DeLICM's model not taken: ${source.delicmNotTaken}`);
    else {
      lines.push("    DeLICM's model:");
      source.model.ctx.scope(() => lines.push(...planLines(source.model, planInterchange(source.model), '      ')));
    }
  }
  return lines.join('\n');
}

export const printInterchangePass: ModulePass = printerPass(
  'print<interchange>',
  'print the nests whose loops the fast path runs interchanged (a column walk\'s outer loop innermost), their statements\' new schedule, and the nests refused with why',
  printScop,
  [maxOperationsOption, scopMaxOperationsOption, delicmMaxOperationsOption, codegenMaxOperationsOption],
);

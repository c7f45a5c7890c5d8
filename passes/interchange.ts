// `print<interchange>`: which nests the fast path runs interchanged (polyhedral/interchange.ts),
// the new order of their statements, and the nests worth interchanging that are not, with why.
// Like versioning, a SCoP whose nests only scalars keep in order is planned again on DeLICM's
// model (the lines after `DeLICM's model:`). Writes to stderr and changes nothing.
import { type InterchangePlan, nestLabel, planInterchange } from '../polyhedral/interchange';
import type { ScopModel } from '../polyhedral/model';
import { delicmFor, delicmMaxOperationsOption } from './delicm';
import type { ModulePass, PassContext } from './pass';
import { maxOperationsOption, printerPass, scopMaxOperationsOption } from './scop-passes';

function planLines(model: ScopModel, plan: InterchangePlan, indent: string): string[] {
  const lines: string[] = [];
  for (const n of plan.nests) {
    lines.push(`${indent}Interchanged: ${nestLabel(model, n)}`);
    for (const st of n.statements) lines.push(`${indent}  ${plan.moved.get(st)}`);
  }
  for (const r of plan.refused) lines.push(`${indent}Refused: ${nestLabel(model, r)}: ${r.why}`);
  if (lines.length === 0) lines.push(`${indent}(no nest worth interchanging)`);
  return lines;
}

function printScop(model: ScopModel, ctx: PassContext): string {
  const lines = [`  SCoP at ${model.location}`];
  const plan = model.ctx.scope(() => {
    const p = planInterchange(model);
    lines.push(...planLines(model, p, '    '));
    return { nests: p.nests.length, byScalars: p.refused.some((r) => r.byScalars) };
  });
  if (plan.nests === 0 && plan.byScalars) {
    const r = delicmFor(ctx, model);
    if (r.unchanged !== undefined) lines.push(`    DeLICM's model: none (${r.unchanged})`);
    else {
      lines.push("    DeLICM's model:");
      r.model.ctx.scope(() => lines.push(...planLines(r.model, planInterchange(r.model), '      ')));
    }
  }
  return lines.join('\n');
}

export const printInterchangePass: ModulePass = printerPass(
  'print<interchange>',
  'print the nests whose loops the fast path runs interchanged (a column walk\'s outer loop innermost), their statements\' new schedule, and the nests refused with why',
  printScop,
  [maxOperationsOption, scopMaxOperationsOption, delicmMaxOperationsOption],
);

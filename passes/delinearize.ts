// `print<delinearization>`: per SCoP, each base pointer with a polynomial access
// delinearized (Grosser et al., ICS 2015): its shape, each access's subscripts,
// its validity condition, and the SCoP's merged condition. Like opt's `print<…>`
// passes it writes to stderr and changes nothing. The registry lists
// `delinearizationPasses`.
import type { Module } from '../ir';
import { scopDetectionAnalysis } from '../analysis/scop-detection';
import type { ScopDelinearization } from '../polyhedral/delinearization/scop-adapter';
import { delinearizationAnalysis, delinearizationAnalysisWith, defaultDelinearizeOptions } from '../polyhedral/delinearization/analysis';
import type { ModulePass, PassContext, PassOption } from './pass';
import { nonNegativeIntegerOption } from './pass';

/** `--delinearize-max-shift=K`: §3.3 pieces M_t for t in [-K, K] (default 1). */
export const maxShiftOption: PassOption = {
  name: 'delinearize-max-shift',
  description: 'how far (in rows) §3.3 looks for a subscript that contains a size parameter (default 1, 0 = not at all)',
};

/** `--delinearize-max-operations=N`: isl operations per candidate shape of one base pointer (default 2000000, as the model allows per SCoP; 0 = no limit). */
export const maxOperationsOption: PassOption = {
  name: 'delinearize-max-operations',
  description: 'isl operations allowed per candidate shape of one base pointer while checking validity; past it the array stays linear (default 2000000, 0 = no limit)',
};


// The analysis lives with delinearization (the model reads it too); passes keep importing it from here.
export { delinearizationAnalysis, delinearizationAnalysisWith } from '../polyhedral/delinearization/analysis';

/** The text `print<delinearization>` shows for one SCoP. */
export function printScopDelinearization(location: string, d: ScopDelinearization): string {
  const lines = [`  SCoP at ${location}`];
  if (d.arrays.length === 0) lines.push('    (no polynomial accesses)');
  for (const a of d.arrays) {
    if (a.shape === undefined) {
      lines.push(`    ${a.name}: stays linear (${a.failure})`);
    } else {
      lines.push(`    ${a.name}: shape ${a.shape.map((s) => `[${s}]`).join('')} (§${a.method}), ${a.elementBytes} bytes`);
      for (const x of a.accesses) lines.push(`      ${x}`);
      lines.push(`      condition: ${a.condition ?? 'true'}`);
      for (const c of a.castsRead) lines.push(`      reads ${c} as its operand: the model assumes it does not wrap`);
    }
    for (const t of a.tried) lines.push(`      tried ${t}`);
  }
  lines.push(`    SCoP condition: ${d.status === 'true' ? 'true' : d.condition}`);
  return lines.join('\n');
}

export const printDelinearizationPass: ModulePass = {
  name: 'print<delinearization>',
  description: 'print, per SCoP, the shapes delinearization recovers for linearized arrays, each access\'s subscripts and the validity condition',
  options: [maxShiftOption, maxOperationsOption],
  run(module: Module, ctx: PassContext) {
    const maxShift = nonNegativeIntegerOption(ctx, maxShiftOption, defaultDelinearizeOptions.maxShift);
    const maxOperations = nonNegativeIntegerOption(ctx, maxOperationsOption, defaultDelinearizeOptions.maxOperations);
    const analysis = maxShift === defaultDelinearizeOptions.maxShift && maxOperations === defaultDelinearizeOptions.maxOperations ? delinearizationAnalysis
      : delinearizationAnalysisWith({ maxShift, maxOperations }, `delinearization(${maxShift},${maxOperations})`);
    for (const fn of module.functions) {
      if (fn.isDeclaration) continue;
      const detection = ctx.am.get(scopDetectionAnalysis, fn);
      const results = ctx.am.get(analysis, fn);
      const parts = [`delinearization for @${fn.name}:`];
      for (const scop of detection.scops) {
        const d = results.get(scop)!;
        const recovered = d.arrays.filter((a) => a.shape !== undefined).length;
        ctx.stats.set('delinearized arrays', (ctx.stats.get('delinearized arrays') ?? 0) + recovered);
        parts.push(printScopDelinearization(scop.location, d));
      }
      if (detection.scops.length === 0) parts.push('  (no SCoPs)');
      process.stderr.write(parts.join('\n') + '\n');
    }
    return 'all';
  },
};

export const delinearizationPasses: ModulePass[] = [printDelinearizationPass];

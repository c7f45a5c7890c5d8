// Text forms of the analyses, for `print<…>` passes and golden tests (like
// opt's `-passes=print<scalar-evolution>`): stable, one fact per line.
import { type IrFunction, type Module, type Value } from '../ir';
import type { ScopCondition, ScopConditionDnf } from '../analysis/scop-detection-types';
import type { FunctionAnalysisManager, ModulePass, PassOption } from './pass';
import { dominatorTreeAnalysis, postDominatorTreeAnalysis, type DomTree } from '../analysis/dominators';
import { loopAnalysis, type Loop } from '../analysis/loops';
import { blockName, localNames, valueName } from '../analysis/value-names';
import { scalarEvolutionAnalysis } from '../analysis/scalar-evolution';
import { printScev } from '../analysis/scev';
import { scopDetectionFor } from '../analysis/scop-detection';

function printTree(fn: IrFunction, tree: DomTree, title: string): string {
  const names = localNames(fn);
  const lines = [`${title} for @${fn.name}:`];
  const walk = (b: (typeof fn.blocks)[number], depth: number): void => {
    lines.push(`${'  '.repeat(depth + 1)}${names.get(b)}`);
    for (const c of tree.children(b)) walk(c, depth + 1);
  };
  for (const b of tree.order) if (tree.idom(b) === undefined) walk(b, 0);
  return lines.join('\n') + '\n';
}

export function printDominatorTree(fn: IrFunction, am: FunctionAnalysisManager): string {
  return printTree(fn, am.get(dominatorTreeAnalysis, fn), 'dominator tree');
}

export function printPostDominatorTree(fn: IrFunction, am: FunctionAnalysisManager): string {
  return printTree(fn, am.get(postDominatorTreeAnalysis, fn), 'post-dominator tree');
}

/** `loop %h depth 2 latch %l preheader %p exiting [%l] exits [%e] blocks [...]`, nested loops indented. */
export function printLoops(fn: IrFunction, am: FunctionAnalysisManager): string {
  const li = am.get(loopAnalysis, fn);
  const se = am.get(scalarEvolutionAnalysis, fn);
  const names = localNames(fn);
  const list = (bs: readonly (typeof fn.blocks)[number][]): string => `[${bs.map((b) => names.get(b)).join(', ')}]`;
  const lines = [`loops for @${fn.name}:`];
  const walk = (l: Loop): void => {
    const pre = l.preheader ? names.get(l.preheader) : 'none';
    const latch = l.latch ? names.get(l.latch) : 'none';
    const btc = se.backedgeTakenCount(l);
    lines.push(
      `${'  '.repeat(l.depth)}loop ${blockName(l.header)} depth ${l.depth} preheader ${pre} latch ${latch}` +
      ` exiting ${list(l.exitingBlocks)} exits ${list(l.exitBlocks)} blocks ${list(l.blocks)}` +
      ` backedge-taken ${printScev(btc)}`,
    );
    l.children.forEach(walk);
  };
  li.topLevel.forEach(walk);
  return lines.join('\n') + '\n';
}

/** One line per integer or pointer instruction, `%x --> <scev>`, then each loop's backedge-taken count. */
export function printScalarEvolution(fn: IrFunction, am: FunctionAnalysisManager): string {
  const se = am.get(scalarEvolutionAnalysis, fn);
  const li = am.get(loopAnalysis, fn);
  const lines = [`scalar evolution for @${fn.name}:`];
  for (const b of fn.blocks) {
    for (const i of b.instructions) {
      if (!se.isScevable(i) || i.type.kind === 'void') continue;
      lines.push(`  ${se.nameOf(i)} --> ${printScev(se.getScev(i))}`);
    }
  }
  for (const l of li.all) {
    const e = se.loopExit(l);
    lines.push('backedgeTakenCount' in e
      ? `  loop ${l.headerName}: backedge-taken count is ${printScev(e.backedgeTakenCount)}`
      : `  loop ${l.headerName}: unpredictable backedge-taken count (${e.cause}: ${e.detail})`);
  }
  return lines.join('\n') + '\n';
}

/** The option that makes detection accept `llvm.memset` (ScopDetectionOptions.memset). */
export const scopMemsetOption: PassOption = {
  name: 'scop-memset',
  description: 'SCoP detection accepts llvm.memset with affine destination and length as a write of a byte range (default false; the polyhedral model does not build range accesses yet)',
};

/** A module pass printing one analysis for every defined function to stderr (where opt prints them). */
export function printerPass(
  name: string, description: string,
  print: (fn: IrFunction, am: FunctionAnalysisManager, options: ReadonlyMap<string, string>) => string,
  options?: readonly PassOption[],
): ModulePass {
  return {
    name: `print<${name}>`,
    description,
    ...(options ? { options } : {}),
    run(module: Module, ctx) {
      for (const fn of module.functions) {
        if (fn.isDeclaration) continue;
        process.stderr.write(print(fn, ctx.am, ctx.options));
      }
      return 'all';
    },
  };
}

/**
 * One line per SCoP and per rejection:
 * `scop %entry---%exit at LOC: depth D, loops N, statements S, params [...], arrays [...], alias [a/b ...][, delinearize]`
 * `reject CAUSE at LOC: DETAIL`
 */
export function printScopDetection(fn: IrFunction, am: FunctionAnalysisManager, options?: ReadonlyMap<string, string>): string {
  const result = am.get(scopDetectionFor(options), fn);
  const names = localNames(fn);
  const lines = [`scop detection for @${fn.name}:`];
  for (const s of result.scops) {
    const params = s.parameters.map((p) => printScev(p)).join(', ');
    const arrays = s.arrays.map((a) => a.name).join(', ');
    const alias = s.aliasPairs.map((p) => `${p.aName}/${p.bName}`).join(' ');
    lines.push(
      `  scop ${names.get(s.entry)}---${s.exit ? names.get(s.exit) : '<return>'} at ${s.location}: depth ${s.depth}, loops ${s.loops.length},` +
      ` statements ${s.statements.length}, params [${params}], arrays [${arrays}], alias [${alias}]${s.needsDelinearization ? ', delinearize' : ''}`,
    );
  }
  for (const r of result.rejections) lines.push(`  reject ${r.cause} at ${r.location}: ${r.detail}`);
  return lines.join('\n') + '\n';
}

function conditionText(c: ScopCondition): string {
  return `${printScev(c.lhs)} ${c.predicate} ${printScev(c.rhs)}`;
}

function dnfText(d: ScopConditionDnf): string {
  if (d.length === 0) return 'false';
  return d.map((conj) => (conj.length === 0 ? 'true' : conj.map(conditionText).join(' && '))).join(' || ');
}

/** Everything detection hands to the polyhedral model, statement by statement (for people and tests). */
export function printScops(fn: IrFunction, am: FunctionAnalysisManager, options?: ReadonlyMap<string, string>): string {
  const result = am.get(scopDetectionFor(options), fn);
  const names = localNames(fn);
  const name = (v: Value): string => valueName(v, names);
  const lines = [`scops of @${fn.name}:`];
  for (const s of result.scops) {
    lines.push(`  scop ${name(s.entry)}---${s.exit ? name(s.exit) : '<return>'} at ${s.location}`);
    lines.push(`    parameters: [${s.parameters.map(printScev).join(', ')}]`);
    for (const l of s.loops) {
      lines.push(`    loop ${l.loop.headerName} depth ${l.depth}: backedge-taken ${printScev(l.backedgeTakenCount)}; continue while ${conditionText(l.continueCondition)}`);
    }
    for (const st of s.statements) {
      lines.push(`    ${st.name} in [${st.loops.map((l) => l.loop.headerName).join(', ')}] when ${dnfText(st.domain)}`);
      for (const a of st.accesses) {
        const subs = a.subscripts ? ` subscripts [${a.subscripts.map(printScev).join('][')}]` : '';
        const bytes = a.range ? `${printScev(a.range.lengthBytes)} bytes` : `${a.elementBytes}B`;
        lines.push(`      ${a.kind} ${a.baseName} ${bytes} +${printScev(a.offset)}${subs} (${a.form})`);
      }
      for (const sc of st.scalars) {
        lines.push(`      ${sc.access} ${sc.kind} ${name(sc.value)}${sc.incoming ? ` <- ${name(sc.incoming)}` : ''}`);
      }
    }
    if (s.aliasPairs.length > 0) lines.push(`    may alias: ${s.aliasPairs.map((p) => `${p.aName}/${p.bName}`).join(' ')}`);
  }
  return lines.join('\n') + '\n';
}

export const analysisPasses: ModulePass[] = [
  printerPass('domtree', 'print the dominator tree of every function', printDominatorTree),
  printerPass('postdomtree', 'print the post-dominator tree of every function', printPostDominatorTree),
  printerPass('loops', 'print the natural loops with preheader, latch, exits and backedge-taken count', printLoops),
  printerPass('scalar-evolution', 'print the closed form of every integer and pointer value and each loop\'s trip count', printScalarEvolution),
  printerPass('scop-detection', 'print the SCoPs found and the rejected regions with their causes', printScopDetection, [scopMemsetOption]),
  printerPass('scop-statements', 'print what detection hands to the model: loops, statements, domains, accesses, scalars', printScops, [scopMemsetOption]),
];

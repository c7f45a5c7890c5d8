// Which fast paths to keep once opt-14 has run, like Polly, which generates no code for a SCoP
// it did not improve. Our fast path has the original schedule, so it can only pay through what
// the check proves: vector code (the post pipeline vectorized it), or values kept in registers
// because the arrays do not overlap (an `alias(A,B)` part of the check). A fast path with
// neither is the original loop nest behind a check; one opt did not vectorize while it did
// vectorize the original code (lu's main: isl's AST splits a loop whose -O3 form was a select)
// is worse. Both are left alone: the original code runs, with no check.
//
// Which path opt vectorized is only known after it ran, so the decision is made on its output:
//   before the post pipeline (guardFastPaths): each versioned SCoP's branch into its fast path
//     also reads a flag, `@tsopt.keep.scopN = internal global i1 true`, which opt cannot fold
//     (no pass of the post pipeline proves a mutable global constant), and the loops of its
//     original code get a `tsopt.slow.loop` marker in their loop IDs (opt keeps unknown
//     loop-ID operands, as it keeps the fast path's `tsopt.loop`);
//   after it (decideFastPaths, applyDecisions): each flag becomes `true` (the `and` goes) or
//     `false`, and `function(instsimplify,simplifycfg,adce),globaldce` drops the fast paths
//     made dead and their checks.
import {
  addGlobalVariable, constInt, dropAllOperands, eraseInstruction, getGlobalVariable, IrBuilder, intType, replaceAllUsesWith, setInitializer, setOperand, successors, users,
  type BasicBlock, type GlobalVariable, type Instruction, type IrFunction, type Module,
} from '../ir';
import type { ScopResult } from './pass';
import { AnalysisManager } from '../analysis/analysis-manager';
import { loopAnalysis } from '../analysis/loops';
import { fastPathName, MetadataTable } from '../codegen/metadata';
import { loopIdEntries, metadataString, vectorWidthOf, type FastPathVectorization } from './vectorized';
import { checkIsOnlyGain, decideBothVectorized, decideWithoutGain, fastPathGains, gatheringFastPaths, type FastPathFields } from './fast-path-gain';
import { pathMemoryOps, registerGain } from './register-gain';

const FAST_ENTRY = /^tsopt\.scop(\d+)\.fast$/;
const KEEP_FLAG = /^tsopt\.keep\.scop(\d+)$/;
/** First operand of `!{!"tsopt.slow.loop", !"tsopt.scopN"}` in the loop IDs of a SCoP's original loops. */
export const SLOW_PATH_LOOP_MARKER = 'tsopt.slow.loop';

/** The blocks of the original code: from the slow entry up to (not into) the SCoP's merge block. */
function slowPathBlocks(slowEntry: BasicBlock, merge: BasicBlock | undefined): Set<BasicBlock> {
  const seen = new Set<BasicBlock>();
  const work = [slowEntry];
  while (work.length > 0) {
    const b = work.pop()!;
    if (b === merge || seen.has(b)) continue;
    seen.add(b);
    work.push(...successors(b));
  }
  return seen;
}

/** Adds `!{!"tsopt.slow.loop", !"tsopt.scopN"}` to the loop ID of every loop headed in `blocks`. */
function markSlowLoops(m: Module, fn: IrFunction, blocks: ReadonlySet<BasicBlock>, scop: string, md: MetadataTable, am: AnalysisManager): void {
  const marker = md.node(() => `!{!"${SLOW_PATH_LOOP_MARKER}", !"${scop}"}`);
  for (const loop of am.get(loopAnalysis, fn).all) {
    if (!blocks.has(loop.header)) continue;
    const branches = loop.latches.map((l) => l.instructions[l.instructions.length - 1]!);
    const existing = branches.map((t) => t.metadata.find((x) => x.name === 'llvm.loop')).find((x) => x);
    const n = existing && /^!(\d+)$/.exec(existing.ref)?.[1];
    const body = n !== undefined ? m.metadata.get(Number(n)) : undefined;
    if (body !== undefined && /^distinct !\{.*\}$/.test(body)) {
      m.metadata.set(Number(n), `${body.slice(0, -1)}, ${marker}}`);
      continue;
    }
    const id = md.node((self) => `distinct !{${self}, ${marker}}`);
    for (const t of branches) {
      t.metadata = t.metadata.filter((x) => x.name !== 'llvm.loop');
      t.metadata.push({ name: 'llvm.loop', ref: id });
    }
  }
}

/**
 * Before the post pipeline: every branch into a fast path (`tsopt.scopN.fast`) also reads the
 * SCoP's keep flag, and the loops of its original code are marked. Returns the SCoP numbers.
 */
export function guardFastPaths(m: Module): number[] {
  const guarded: number[] = [];
  const md = new MetadataTable(m);
  const am = new AnalysisManager();
  for (const fn of m.functions) {
    if (fn.isDeclaration) continue;
    for (const block of [...fn.blocks]) {
      const t = block.instructions[block.instructions.length - 1];
      if (t?.opcode !== 'br' || t.operands.length !== 3) continue;
      const fast = t.operands[1] as BasicBlock;
      const k = fast.kind === 'block' ? FAST_ENTRY.exec(fast.name ?? '')?.[1] : undefined;
      if (k === undefined) continue;
      const flag = addGlobalVariable(m, `tsopt.keep.scop${k}`, intType(1), { prefix: 'internal', suffix: ', align 1' });
      setInitializer(flag, constInt(intType(1), 1));
      const b = new IrBuilder().positionBefore(t);
      const keep = b.load(intType(1), flag, `tsopt.keep${k}`, 1);
      setOperand(t, 0, b.and(t.operands[0]!, keep, `tsopt.go${k}`));
      const merge = fn.blocks.find((x) => x.name === `tsopt.scop${k}.after`);
      markSlowLoops(m, fn, slowPathBlocks(t.operands[2] as BasicBlock, merge), `tsopt.scop${k}`, md, am);
      guarded.push(Number(k));
    }
    am.invalidate(fn, 'none');
  }
  return guarded;
}

/** What was decided for one versioned SCoP, and why (the report's `fastPathKept`, `profitability`). */
export interface FastPathDecision {
  readonly scop: number;
  readonly function: string;
  readonly location: string;
  readonly kept: boolean;
  readonly reason: string;
}

/** The SCoP numbers (`tsopt.scopN`) whose original loops hold vector code in `m`. */
function vectorizedSlowPaths(m: Module): Set<number> {
  const found = new Set<number>();
  const am = new AnalysisManager();
  for (const fn of m.functions) {
    if (fn.isDeclaration) continue;
    const info = am.get(loopAnalysis, fn);
    for (const loop of info.all) {
      for (const { tag, fields } of loopIdEntries(m, loop)) {
        if (tag !== SLOW_PATH_LOOP_MARKER) continue;
        const k = /^tsopt\.scop(\d+)$/.exec(metadataString(fields.get('1')) ?? '')?.[1];
        if (k === undefined) continue;
        if (loop.blocks.some((b) => b.instructions.some((i) => vectorWidthOf(i) > 0))) found.add(Number(k));
      }
    }
    // One function's loop forest at a time (a module's at once weighs more than its IR).
    am.invalidate(fn, 'none');
  }
  return found;
}

/**
 * The decision for each guarded SCoP, from opt's output `m`, what opt vectorized of each fast
 * path (passes/vectorized.ts) and what versioning published (`tsopt.scopN` is its N-th result).
 */
export function decideFastPaths(m: Module, guarded: readonly number[], results: readonly ScopResult[], fastPaths: ReadonlyMap<string, FastPathVectorization>): FastPathDecision[] {
  const versioning = results.filter((r) => r.pass === 'versioning');
  const slowVectorized = vectorizedSlowPaths(m);
  const gathering = gatheringFastPaths(m);
  return guarded.map((scop) => {
    const r = versioning[scop];
    if (!r) throw new Error(`profitability: no versioning result for tsopt.scop${scop}`);
    const parts = (r.fields.runtimeCheckParts as { label: string }[] | undefined) ?? [];
    const aliases = parts.filter((p) => p.label.startsWith('alias(')).map((p) => p.label);
    const base = { scop, function: r.function, location: r.location };
    const name = fastPathName(r.function, r.location);
    const fastVectorized = fastPaths.get(name)?.vectorized === true;
    // A fast path that is the original loops can only lose to them (passes/fast-path-gain.ts).
    const noGain = fastPathGains(r.fields as FastPathFields).length === 0 ? decideWithoutGain(fastVectorized, slowVectorized.has(scop), gathering.has(name)) : undefined;
    if (noGain) return { ...base, ...noGain };
    const fn = m.functions.find((f) => f.name === r.function && !f.isDeclaration);
    const counts = (): ReturnType<typeof pathMemoryOps> | undefined => fn && pathMemoryOps(m, fn, name, SLOW_PATH_LOOP_MARKER, `tsopt.scop${scop}`);
    if (fastVectorized && slowVectorized.has(scop) && checkIsOnlyGain(r.fields as FastPathFields)) {
      const c = counts();
      const both = c && decideBothVectorized(c);
      if (both) return { ...base, ...both };
    }
    if (fastVectorized) return { ...base, kept: true, reason: 'opt vectorized the fast path' };
    const omp = (r.fields.ompParallelLoops as string[] | undefined) ?? [];
    if (omp.length > 0) return { ...base, kept: true, reason: `loops of the fast path run on OpenMP's threads (${omp.join(', ')})` };
    if ((r.fields.schedule as { timeTiled?: unknown } | undefined)?.timeTiled) {
      return { ...base, kept: true, reason: 'not vectorized, but time-tiled: a tile\'s time steps reuse what the caches hold, and its wavefronts are independent points the CPU overlaps' };
    }
    const jam = (r.fields.schedule as { rowJammed?: { factor: number } } | undefined)?.rowJammed;
    if (jam) return { ...base, kept: true, reason: `not vectorized, but row-jammed: ${jam.factor} rows' sums run as independent chains the CPU overlaps` };
    if (slowVectorized.has(scop)) return { ...base, kept: false, reason: 'opt vectorized the original code but not the fast path: the original code runs, without the check' };
    if (aliases.length === 0) {
      return { ...base, kept: false, reason: 'opt vectorized neither path and the check rules out no aliasing the original code had to assume: the original code runs, without the check' };
    }
    const c = counts();
    const registers = c && registerGain(c);
    if (registers && !registers.gains) {
      return { ...base, kept: false, reason: `opt vectorized neither path, and though the check rules out aliasing (${aliases.join(', ')}), opt kept no more values in registers in the fast path (${registers.why}): the original code runs, without the check` };
    }
    const measured = registers ? ` (${registers.why})` : '';
    return { ...base, kept: true, reason: `not vectorized, but the check rules out aliasing (${aliases.join(', ')}), which lets opt keep values in registers in the fast path${measured}` };
  });
}

/** The keep flag `@tsopt.keep.scopN` of each guarded SCoP in `m`. */
function keepFlags(m: Module, guarded: readonly number[]): Map<number, GlobalVariable> {
  const flags = new Map<number, GlobalVariable>();
  for (const k of guarded) {
    const g = getGlobalVariable(m, `tsopt.keep.scop${k}`);
    if (g && KEEP_FLAG.test(g.name)) flags.set(k, g);
  }
  return flags;
}

/**
 * Replaces each keep flag's loads by its decision and removes the flag; `x and true` becomes
 * `x`. Returns whether a fast path was dropped (then the caller runs CLEANUP_PIPELINE).
 */
export function applyDecisions(m: Module, decisions: readonly FastPathDecision[]): boolean {
  const flags = keepFlags(m, decisions.map((d) => d.scop));
  let dropped = false;
  for (const d of decisions) {
    const flag = flags.get(d.scop);
    if (!flag) continue;
    const value = constInt(intType(1), d.kept ? 1 : 0);
    for (const load of users(flag) as Instruction[]) {
      if (load.kind !== 'instruction' || load.opcode !== 'load') throw new Error(`profitability: @${flag.name} is used by ${load.opcode}`);
      for (const user of users(load) as Instruction[]) {
        // `and x, true` is x and `and x, false` is false; anything else opt made of the flag
        // folds in CLEANUP_PIPELINE.
        if (user.kind === 'instruction' && user.opcode === 'and') {
          const other = user.operands[0] === load ? user.operands[1]! : user.operands[0]!;
          replaceAllUsesWith(user, d.kept ? other : value);
          eraseInstruction(user);
        }
      }
      replaceAllUsesWith(load, value);
      eraseInstruction(load);
    }
    const at = m.globals.indexOf(flag);
    if (users(flag).length === 0 && at >= 0) {
      dropAllOperands(flag);
      m.globals.splice(at, 1);
      m.symbols.delete(flag.name);
    }
    if (!d.kept) dropped = true;
  }
  return dropped;
}

/** After applyDecisions dropped a fast path: fold its branch, delete its blocks and the check. */
export const CLEANUP_PIPELINE = 'function(instsimplify,simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;switch-range-to-icmp;no-switch-to-lookup;keep-loops;no-hoist-common-insts;no-sink-common-insts>,adce),globaldce';

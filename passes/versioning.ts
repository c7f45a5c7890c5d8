// `versioning`: every SCoP becomes `if (run-time check) fast path else original`.
//
//   pred ──► tsopt.check ──(check holds)──► fast path (from the model's isl AST) ──┐
//                 └──────(otherwise)──────► original SCoP (untouched) ────────────┴─► exit
//
// The check is the conjunction of the alias checks and the model's assumptions
// (runtime-checks/), computed in i128. The fast path is generated from the isl AST of
// the SCoP's schedule (passes/codegen/): loops, conditions, and each statement's
// instructions with operands remapped to the new induction variables. It carries alias
// scopes for the distinct arrays and `llvm.loop.parallel_accesses` on loops the model
// shows carry no dependence, so opt-14's vectorizers can make SIMD code of it. A column walk
// runs interchanged (polyhedral/interchange.ts, --interchange): when only -O3's scalars (a
// reduction kept in a PHI) keep its nest in order, the SCoP is generated from DeLICM's model,
// where they are array elements, and from the plain model if DeLICM's keeps no fast path.
// Scalars crossing statements go through stack slots (see codegen/block-generator.ts).
// When the `delicm` pass ran before (`--passes=delicm,versioning`), the check, the dependences
// (parallel loops) and the fast path come from DeLICM's transformed model instead: its mapped
// scalars live in array elements (codegen/mapped-accesses.ts) and need no slot.
// A SCoP is left as it was, with a `missed` remark and a `notVersioned` report field saying
// why, when: isl exceeds its operations quota; the check would compare too many pairs or an
// accessed range has no bound; a value computed in the SCoP is used after it (not handled
// yet); the statements hold code the generator cannot copy (calls with side effects, loads
// crossing statements outside the model).
import { AstBuild, IslError, IslQuotaError, readAstNode, type AstNodeTree } from 'isl-wasm';
import {
  IrBuilder, addIncoming, constInt, createBlock, dropAllOperands, eraseBlock, eraseInstruction, insertBlock, intType, predecessors, removePhiIncoming, replacePhiIncomingBlock, successors,
  setOperand, terminator, type BasicBlock, type Instruction, type IrFunction, type Module, type Value, constantsEqual,
} from '../ir';
import { scalarEvolutionAnalysis, type ScalarEvolution } from './analysis/scalar-evolution';
import { ScevKind, type ScevLoop } from './analysis/scev';
import { outerIterations } from './codegen/outer-iteration';
import { islSpending } from '../polyhedral/budget';
import type { ScopArray, ScopModel, ScopStatementModel } from '../polyhedral/model';
import { conjunction } from './report';
import { AstExprEmitter } from './codegen/ast-expr';
import { AstToIr, statementCalls } from './codegen/ast-to-ir';
import { copyStatement, UnsupportedCodeError, type StatementScalars } from './codegen/block-generator';
import { hoistLiveOuts, mergeLiveOuts, planLiveOuts, type LiveOuts } from './codegen/live-outs';
import { mappedAccessHooks, planMappedAccesses, type MappedAccessPlan } from './codegen/mapped-accesses';
import { planRerolls, rolledHeaderValues, type RerolledLoop } from './codegen/reroll';
import { delicmMaxOperationsOption } from './delicm';
import { scopSources, withInterchangePlan, type ScopSource } from './scop-sources';
import { nestLabel, type InterchangePlan } from '../polyhedral/interchange';
import { fastPathName, MetadataTable } from './codegen/metadata';
import { NotExpandableError, ScevExpander } from './codegen/scev-expander';
import { checkOperandsDominate, StaleModelError } from './codegen/dominance';
import { checkParts, CheckTooLargeError, unboundedAliasedArray, type CheckPart } from '../runtime-checks/parts';
import { emitParts, sizeValue } from '../runtime-checks/emit';
import { RtcStats } from '../runtime-checks/stats';
import { checkFunctionName, outlineCheck, removeCheckFunction, type OutlinedCheck } from '../runtime-checks/outline';
import type { AnalysisKey, ModulePass, PassContext, PassOption } from './pass';
import type { FunctionScopModels } from '../polyhedral/model';
import { booleanOption, nonNegativeIntegerOption } from './pass';
import { maxOperationsOption, modelAnalysisFrom, scopMaxOperationsOption } from './scop-passes';
import { moduleBudgetOptions } from './module-budget-options';

export const rtcStatsOption: PassOption = {
  name: 'rtc-stats',
  description: 'make the program count, per SCoP, fast and slow runs and which check part failed, printed at exit to stderr (or to the file $TSOPT_RTC_STATS)',
};
export const maxAliasPairsOption: PassOption = {
  name: 'rtc-max-alias-pairs',
  description: 'at most this many pairs of arrays compared in one run-time check; a SCoP needing more keeps no fast path (default 32)',
};
export const rerollOption: PassOption = {
  name: 'reroll',
  description: 'generate the fast path of a loop -O3 runtime-unrolled as the rolled loop over its whole range (default true; --reroll=false keeps the unrolled copies)',
};
export const interchangeOption: PassOption = {
  name: 'interchange',
  description: 'run a column walk\'s outer loop innermost in the fast path when that is legal and every access then moves by one element or none (polyhedral/interchange.ts; default true); a nest that only scalars keep in order is generated from DeLICM\'s model',
};
export const rtcCheckFunctionsOption: PassOption = {
  name: 'rtc-check-functions',
  description: 'compute each run-time check in a noinline function of its own (tsopt.check.<function>.scopN), so what the check executes can be counted in the final code (bench/check-cost.ts); costs a call per check',
};
export const codegenMaxOperationsOption: PassOption = {
  name: 'codegen-max-operations',
  description: 'isl operations allowed per SCoP for the check and the AST, a step of --scop-max-operations (default 1000000, 0 = no limit)',
};

/** --codegen-max-operations (versioning and `print<interchange>` read it alike). */
export function codegenMaxOperationsFrom(ctx: PassContext): number {
  return nonNegativeIntegerOption(ctx, codegenMaxOperationsOption, 1_000_000);
}

/** What versioning did to one SCoP (the report's per-SCoP fields). */
export interface VersionedScop {
  readonly function: string;
  readonly location: string;
  /** The combined check as a C expression ('1': always true). */
  readonly runtimeCheck: string;
  readonly parts: readonly { readonly label: string; readonly c: string }[];
  /** Instructions added to the function. */
  readonly codeGrowth: number;
  readonly parallelLoops: number;
  /** Nests whose loops the fast path runs interchanged: `outer <-> inner` by their labels. */
  readonly interchanged: readonly string[];
  /** Nests worth interchanging that were not, and why. */
  readonly interchangeRefused: readonly string[];
  /** Loops -O3 had runtime-unrolled that the fast path runs rolled (codegen/reroll.ts). */
  readonly rerolledLoops: number;
}

class NotVersioned extends Error {}

function instructionCount(fn: IrFunction): number {
  return fn.blocks.reduce((n, b) => n + b.instructions.length, 0);
}

/** Why the region cannot be wired as `if (check) fast else original`, or undefined. */
function wiringProblem(model: ScopModel, region: ReadonlySet<BasicBlock>): string | undefined {
  const { scop } = model;
  if (!scop.exit) return 'the SCoP runs to the function\'s return';
  const outside = predecessors(scop.entry).filter((p) => !region.has(p));
  if (outside.length === 0) return 'its entry has no predecessor outside it';
  if (outside.some((p) => terminator(p)?.opcode !== 'br')) return 'a predecessor of its entry does not end in a branch';
  for (const a of model.arrays) {
    if (a.kind === 'phi') {
      const phi = a.value as Instruction;
      if (phi.opcode !== 'phi') return `the PHI location ${a.name} is not a PHI`;
      if (!phi.parent || (!region.has(phi.parent) && phi.parent !== scop.exit)) return `the PHI ${a.name} lies outside the SCoP`;
    }
  }
  return undefined;
}

/** Loops of the AST that run the iterations of model loops carrying no dependence. */
function parallelAstLoops(ast: AstNodeTree, model: ScopModel, rolled: readonly RerolledLoop[], interchange: InterchangePlan | undefined): Set<AstNodeTree> {
  const parallel = new Set(model.dependences.parallelLoops);
  // An interchanged inner loop now runs outside its outer one: what it carried there is not known.
  for (const n of interchange?.nests ?? []) for (const m of n.inners) parallel.delete(m);
  // A rolled loop runs the instances of two model loops: its own check decides.
  for (const r of rolled) {
    if (r.parallel) parallel.add(r.loop);
    else parallel.delete(r.loop);
  }
  const byName = new Map(model.statements.map((s) => [s.name, s] as const));
  const out = new Set<AstNodeTree>();
  const visit = (n: AstNodeTree): void => {
    if (n.kind === 'for') {
      const it = n.iterator.kind === 'id' ? n.iterator.name : '';
      const calls = statementCalls(n.body);
      const ok = calls.length > 0 && calls.every((c) => {
        const st = byName.get(c.name);
        const m = c.args.findIndex((a) => a.kind === 'id' && a.name === it);
        return st !== undefined && m >= 0 && parallel.has(st.loops[m]!);
      });
      if (ok) out.add(n);
      visit(n.body);
    } else if (n.kind === 'block') n.children.forEach(visit);
    else if (n.kind === 'if') {
      visit(n.then);
      if (n.else) visit(n.else);
    } else if (n.kind === 'mark') visit(n.node);
  };
  visit(ast);
  return out;
}

interface VersioningOptions {
  readonly maxOperations: number;
  readonly maxAliasPairs: number;
  readonly stats: RtcStats | undefined;
  readonly reroll: boolean;
  /** --rtc-check-functions: each check in a function of its own (runtime-checks/outline.ts). */
  readonly checkFunctions: boolean;
  readonly interchange: boolean;
}

/** `location`: the SCoP's location in the input (the model's, unless it was rebuilt on changed IR). */
function versionScop(module: Module, fn: IrFunction, { model, original }: ScopSource, location: string, se: ScalarEvolution, index: number, o: VersioningOptions, ctx: PassContext): VersionedScop {
  const region = new Set(model.scop.blocks);
  const problem = wiringProblem(original, region);
  if (problem) throw new NotVersioned(problem);
  const liveOuts = liveOutsOrRefuse(model, region, se);
  const isl = model.ctx;
  if (model.budget.exhaustedBy) throw new NotVersioned(model.budget.reason());
  // Cheap rejection first: no check can cover an over-approximated aliased array, so spend nothing on the plan and the check.
  const unbounded = unboundedAliasedArray(model);
  if (unbounded) throw new NotVersioned(unbounded);
  let parts: CheckPart[];
  let ast: AstNodeTree;
  let mapped: Map<ScopStatementModel, MappedAccessPlan[]>;
  let rolled: RerolledLoop[];
  // Column walks: the outer loop innermost (polyhedral/interchange.ts), planned under a quota of
  // its own (isl failing there keeps the original order); the new schedule lives until the AST is built.
  const interchange = o.interchange ? withInterchangePlan(model, o.maxOperations, (plan) => ({ ...plan, schedule: plan.schedule?.keep() })) : undefined;
  if (model.budget.exhaustedBy) {
    interchange?.schedule?.dispose();
    throw new NotVersioned(model.budget.reason());
  }
  try {
    [parts, ast, mapped, rolled] = model.budget.run(isl, 'check and AST', o.maxOperations, () =>
      isl.scope(() => {
        const p = checkParts(model, { maxAliasPairs: o.maxAliasPairs });
        const plans = planMappedAccesses(model);
        // The interchanged nests' statements stay unrolled.
        const interchanged = new Set(interchange?.nests.flatMap((n) => n.statements));
        // Loops -O3 runtime-unrolled: the remainder's statement over the whole index range instead.
        const rerolls = o.reroll ? planRerolls(model, se, (st) => (plans.get(st)?.length ?? 0) > 0 || interchanged.has(st)) : [];
        // [params] -> { Stmt_S[i...] : ... } with each rerolled pair replaced by its rolled statement
        let domains = model.domains;
        for (const r of rerolls) domains = domains.subtract(r.unrolled.domain.toUnionSet()).subtract(r.remainder.domain.toUnionSet()).union(r.domain.toUnionSet());
        // { Stmt_S[i...] -> [t0, ...] } restricted to the domains: the original order, or the interchanged one.
        const schedule = (interchange?.schedule ?? model.schedule).intersectDomain(domains);
        const tree = readAstNode(AstBuild.fromContext(model.context).nodeFromScheduleMap(schedule));
        return [p, tree, plans, rerolls] as const;
      }),
    );
  } catch (e) {
    if (e instanceof IslError && model.budget.exhaustedBy) throw new NotVersioned(model.budget.reason());
    if (e instanceof IslQuotaError) throw new NotVersioned(`isl exceeded its quota of ${o.maxOperations} operations for the check and the AST (--codegen-max-operations)`);
    if (e instanceof CheckTooLargeError) throw new NotVersioned(e.message);
    if (e instanceof IslError) throw new NotVersioned(`isl failed on the check or the AST: ${e.message}`);
    if (e instanceof UnsupportedCodeError) throw new NotVersioned(e.message);
    throw e;
  } finally {
    interchange?.schedule?.dispose();
  }

  const before = instructionCount(fn);
  const entry = model.scop.entry;
  const exit = model.scop.exit!;
  const pred = singleOutsidePredecessor(entry, region);
  const unhoist = hoistLiveOuts(liveOuts, pred);
  const prefix = `tsopt.scop${index}`;
  const check = insertBlock(fn, createBlock(`${prefix}.check`), fn.blocks.indexOf(entry));
  const fastEntry = insertBlock(fn, createBlock(`${prefix}.fast`), fn.blocks.indexOf(entry));
  const made: BasicBlock[] = [check, fastEntry];
  let generated: readonly BasicBlock[] = [];
  let createdSlots: Instruction[] = [];
  let outlined: OutlinedCheck | undefined;
  const b = new IrBuilder(check);
  const inCheck: ScevExpander = new ScevExpander(b, {
    iterationOf: outerIterations(se, b, region, (s) => inCheck.exact(s)),
    isAvailable: (v) => !(v.kind === 'instruction' && v.parent !== undefined && region.has(v.parent)),
  });
  try {
    // Parameters: exact values in i128 for the check, truncated to i64 for the fast path
    // (the parameter-range part of the check makes that exact).
    const exact = new Map<string, Value>();
    for (const p of model.parameters) exact.set(p.name, inCheck.exact(p.expression));
    const lookup128 = (name: string): Value => {
      const v = exact.get(name);
      if (!v) throw new UnsupportedCodeError(`the AST names '${name}', not a parameter`);
      return v;
    };
    const e128 = new AstExprEmitter(b, 128, lookup128);
    const emitted = emitParts(parts, b, e128, inCheck);
    // Parameters and loop bounds in i64 on the fast path: parameters must be well inside i64.
    const range: Value[] = [];
    const limit = 1n << 60n;
    for (const p of model.parameters) {
      if (p.bits < 60 && p.expression.kind === ScevKind.Unknown) continue;
      const v = exact.get(p.name)!;
      range.push(b.and(b.icmp('sge', v, constInt(intType(128), -limit)), b.icmp('sle', v, constInt(intType(128), limit))));
    }
    const all = [...emitted];
    if (range.length > 0) {
      all.push({ label: 'parameter-range', c: model.parameters.filter((p) => !(p.bits < 60 && p.expression.kind === ScevKind.Unknown)).map((p) => `-2^60 <= ${p.c} && ${p.c} <= 2^60`).join(' && '), value: range.reduce((x, y) => b.and(x, y)) });
    }
    const combined = all.length === 0 ? constInt(intType(1), 1) : all.map((x) => x.value).reduce((x, y) => b.and(x, y));
    outlined = o.checkFunctions ? outlineCheck(module, check, combined, checkFunctionName(fn, index)) : undefined;
    const cond = outlined?.value ?? combined;
    o.stats?.instrument(b, fn, location, index, cond, all);
    const params64 = new Map<string, Value>();
    const lookup64 = (name: string): Value => {
      let v = params64.get(name);
      if (!v) {
        v = b.trunc(lookup128(name), intType(64));
        params64.set(name, v);
      }
      return v;
    };
    // Parameters for the fast path are computed in the check block (it dominates the fast path).
    for (const p of model.parameters) lookup64(p.name);
    const mappedSizes = mappedArraySizes(mapped, (size) => b.trunc(sizeValue(size, inCheck, b), intType(64)));

    // The fast path.
    const md = new MetadataTable(module);
    const arrays = model.arrays.filter((a) => a.kind === 'array');
    const scopes = md.scopes(fastPathName(fn.name, location), arrays.map((a) => a.name));
    const scopeOf = new Map(arrays.map((a, k) => [a, scopes[k]!] as const));
    const arrayOfInst = new Map<Instruction, (typeof arrays)[number]>();
    for (const st of model.statements) for (const acc of st.accesses) if (acc.instruction && acc.array.kind === 'array') arrayOfInst.set(acc.instruction, acc.array);
    const parallel = parallelAstLoops(ast, model, rolled, interchange);
    const rolledByName = new Map(rolled.map((r) => [r.statement.name, r] as const));
    const groups = new Map<AstNodeTree, string>();
    for (const n of parallel) groups.set(n, md.accessGroup());
    const byName = new Map<string, ScopStatementModel>(model.statements.map((s) => [s.name, s] as const));
    const slots = scalarSlots(fn, model, region, fb0(fastEntry));
    createdSlots = [...slots.values()];
    let enclosingGroups: string[] = [];
    const decorateAccess = (copy: Instruction, array: ScopArray): void => {
      copy.metadata.push({ name: 'alias.scope', ref: md.list([scopeOf.get(array)!]) });
      const others = arrays.filter((x) => x !== array).map((x) => scopeOf.get(x)!);
      if (others.length > 0) copy.metadata.push({ name: 'noalias', ref: md.list(others) });
      if (enclosingGroups.length === 1) copy.metadata.push({ name: 'llvm.access.group', ref: enclosingGroups[0]! });
      else if (enclosingGroups.length > 1) copy.metadata.push({ name: 'llvm.access.group', ref: md.list(enclosingGroups) });
    };
    const fb = new IrBuilder(fastEntry);
    const gen = new AstToIr(fb, {
      parameter: lookup64,
      statement: (name, args, builder, enclosing) => {
        const roll = rolledByName.get(name);
        // A rolled statement runs the remainder's body (named after the unrolled loop when the remainder is a block).
        const st = roll?.remainder ?? byName.get(name);
        if (!st) throw new UnsupportedCodeError(`the AST names an unknown statement ${name}`);
        // A rolled statement's last counter is the index from the loop's start, not the remainder's iteration.
        const counted = roll ? roll.statement.loops.slice(0, -1) : st.loops;
        const iterations = new Map<ScevLoop, Value>(counted.map((l, k) => [l.loop, args[k]!] as const));
        enclosingGroups = enclosing.flatMap((n) => groups.get(n) ?? []);
        const scalars = statementScalars(st, slots, mappedAccessHooks(mapped.get(st) ?? [], args, {
          parameter: lookup64, sizes: (a) => mappedSizes.get(a)!, decorate: decorateAccess, newBlock: (n) => gen.newBlock(n), regionBlocks: region,
        }));
        const header = roll
          ? (hb: IrBuilder) => rolledHeaderValues(roll, se, hb, args[args.length - 1]!, iterations, (v) => !(v.kind === 'instruction' && v.parent !== undefined && region.has(v.parent)))
          : undefined;
        copyStatement({
          module, se, regionBlocks: region,
          decorate: (copy, original) => {
            const array = arrayOfInst.get(original);
            if (array) decorateAccess(copy, array);
          },
        }, st.block, iterations, builder, header ? { ...scalars, atStart: (hb) => new Map([...(scalars.atStart?.(hb) ?? []), ...header(hb)]) } : scalars);
      },
      loop: (loop) => {
        const g = groups.get(loop.node);
        // No `llvm.loop.vectorize.enable`: it makes the loop vectorizer ignore its cost model, and
        // on -O3's runtime-unrolled statements (stride-2 and stride-4 accesses) the forced
        // interleaved-group code ran gemm 1.5x slower than the scalar loop SLP vectorizes.
        loop.latchBranch.metadata.push({ name: 'llvm.loop', ref: md.fastPathLoop(fastPathName(fn.name, location), loop.depth, g) });
      },
    }, prefix);
    generated = gen.blocks;
    gen.generate(ast);
    // Before anything outside the new blocks changes: a model built before an earlier SCoP of
    // this function was versioned may name a definition that no longer dominates this SCoP.
    checkOperandsDominate(fn, pred, [...made, ...generated], liveOuts.hoisted);
    mergeLiveOuts(liveOuts, model, region, fb.insertBlock!, slots, `${prefix}.after`);
    // Wire: pred → check → (fast | original).
    b.positionAtEnd(check).condBr(cond, fastEntry, entry);
    outlined?.eraseUnused();
    const t = terminator(pred)!;
    t.operands.forEach((op, k) => {
      if (op === entry) setOperand(t, k, check);
    });
    replacePhiIncomingBlock(entry, pred, check);
    const growth = instructionCount(fn) - before;
    const runtimeCheck = conjunction(all.map((x) => x.c));
    ctx.log.debug({ function: fn.name, scop: location, runtimeCheck }, 'versioned');
    return {
      function: fn.name, location, runtimeCheck,
      parts: all.map((x) => ({ label: x.label, c: x.c })), codeGrowth: growth, parallelLoops: parallel.size, rerolledLoops: rolled.length,
      interchanged: (interchange?.nests ?? []).map((n) => nestLabel(model, n)),
      interchangeRefused: (interchange?.refused ?? []).map((r) => `${nestLabel(model, r)}: ${r.why}`),
    };
  } catch (e) {
    undo([...made, ...generated]);
    o.stats?.forget(index);
    if (outlined) removeCheckFunction(module, outlined);
    unhoist();
    for (const slot of createdSlots) if (slot.uses.length === 0) eraseInstruction(slot);
    if (e instanceof UnsupportedCodeError || e instanceof NotExpandableError) throw new NotVersioned(e.message);
    throw e;
  }
}

/** What code after the SCoP needs from it (codegen/live-outs.ts), or why it cannot be given. */
function liveOutsOrRefuse(model: ScopModel, region: ReadonlySet<BasicBlock>, se: ScalarEvolution): LiveOuts {
  try {
    return planLiveOuts(model, region, (v) => se.nameOf(v));
  } catch (e) {
    if (e instanceof UnsupportedCodeError) throw new NotVersioned(e.message);
    throw e;
  }
}

/**
 * The one predecessor of `entry` outside the region; when there are several, a new block
 * they all branch to, holding PHIs for the values `entry`'s PHIs took from them.
 */
function singleOutsidePredecessor(entry: BasicBlock, region: ReadonlySet<BasicBlock>): BasicBlock {
  const outside = [...new Set(predecessors(entry).filter((p) => !region.has(p)))];
  if (outside.length === 1) return outside[0]!;
  const fn = entry.parent!;
  const funnel = insertBlock(fn, createBlock(`${entry.name ?? 'scop'}.tsopt.entry`), fn.blocks.indexOf(entry));
  const b = new IrBuilder(funnel);
  const merges: [Instruction, Instruction][] = [];
  for (const phi of entry.instructions) {
    if (phi.opcode !== 'phi') break;
    const incoming: [Value, BasicBlock][] = [];
    for (let k = phi.incomingBlocks!.length - 1; k >= 0; k--) {
      const from = phi.incomingBlocks![k]!;
      if (region.has(from)) continue;
      incoming.unshift([phi.operands[k]!, from]);
    }
    merges.push([phi, b.phi(phi.type, phi.name, incoming)]);
  }
  for (const from of outside) removePhiIncoming(entry, from);
  for (const [phi, merged] of merges) addIncoming(phi, merged, funnel);
  b.br(entry);
  for (const p of outside) {
    const t = terminator(p)!;
    t.operands.forEach((op, k) => {
      if (op === entry) setOperand(t, k, funnel);
    });
  }
  return funnel;
}

/** A builder at the end of the fast path's entry block. */
function fb0(block: BasicBlock): IrBuilder {
  return new IrBuilder(block);
}

/**
 * One stack slot per scalar of the model (Polly's demotion of scalars to memory), made in the
 * function's entry block; PHIs with an incoming value from before the SCoP get it stored in
 * their slot at the start of the fast path (`init`).
 */
function scalarSlots(fn: IrFunction, model: ScopModel, region: ReadonlySet<BasicBlock>, init: IrBuilder): Map<ScopArray, Instruction> {
  const slots = new Map<ScopArray, Instruction>();
  const entry = fn.blocks[0]!;
  for (const a of model.arrays) {
    if (a.kind === 'array') continue;
    const v = a.value as Instruction;
    const slot = new IrBuilder().positionAtStart(entry).alloca(v.type, `${v.name ?? 'scalar'}.${a.kind === 'phi' ? 'phiops' : 's2a'}`);
    slots.set(a, slot);
    if (a.kind === 'phi' && v.parent && region.has(v.parent)) {
      v.operands.forEach((incoming, k) => {
        if (!region.has(v.incomingBlocks![k]!)) init.store(incoming, slot);
      });
    }
  }
  return slots;
}

/** The sizes (i64, from `size`) of the arrays some mapped access goes to. */
function mappedArraySizes(plans: ReadonlyMap<ScopStatementModel, readonly MappedAccessPlan[]>, size: (e: ScopArray['sizes'][number]) => Value): Map<ScopArray, Value[]> {
  const sizes = new Map<ScopArray, Value[]>();
  for (const plan of [...plans.values()].flat()) {
    const array = plan.access.array;
    if (!sizes.has(array)) sizes.set(array, array.sizes.map(size));
  }
  return sizes;
}

/** The statement's scalars: slot reads and writes, and DeLICM's mapped accesses (`mapped`, loads and stores of array elements). */
function statementScalars(st: ScopStatementModel, slots: ReadonlyMap<ScopArray, Instruction>, mapped: Pick<StatementScalars, 'atStart' | 'atEnd'>): StatementScalars {
  const reads = new Map<Value, Instruction>();
  const writes: { slot: Instruction; value: Value }[] = [];
  for (const acc of st.accesses) {
    // Mapped scalars (array.kind === 'array') are `mapped`'s.
    if (acc.array.kind === 'array' || !acc.scalar) continue;
    const slot = slots.get(acc.array)!;
    if (acc.kind === 'read') reads.set(acc.scalar.value, slot);
    else if (acc.scalar.kind === 'phi') {
      if (!acc.scalar.incoming) throw new UnsupportedCodeError(`a write of the PHI ${acc.array.name} without its incoming value`);
      writes.push({ slot, value: acc.scalar.incoming });
    } else writes.push({ slot, value: acc.scalar.value });
  }
  return { reads, writes, ...mapped };
}

/**
 * The SCoPs in reverse post-order of their entries. Versioning a SCoP rewires the edges into its
 * entry and out of its region; when one SCoP's exit is the next one's entry, the earlier one must
 * go first: its exit edges then lead to the later one's entry, which that SCoP's wiring handles
 * as any outside predecessor, whereas the other order would leave the earlier SCoP's model naming
 * an exit its region no longer branches to (robustness seed 4: a PHI missing an incoming block).
 */
function inCfgOrder(fn: IrFunction, sources: readonly ScopSource[]): ScopSource[] {
  const order = new Map<BasicBlock, number>();
  const seen = new Set<BasicBlock>();
  const post: BasicBlock[] = [];
  const entry = fn.blocks[0];
  if (entry) {
    // Iterative depth-first search: functions from csmith have thousands of blocks.
    const stack: [BasicBlock, BasicBlock[]][] = [[entry, successors(entry)]];
    seen.add(entry);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const next = top[1].shift();
      if (next === undefined) {
        post.push(top[0]);
        stack.pop();
      } else if (!seen.has(next)) {
        seen.add(next);
        stack.push([next, successors(next)]);
      }
    }
  }
  post.reverse().forEach((b, k) => order.set(b, k));
  const at = (s: ScopSource) => order.get(s.model.scop.entry) ?? Number.MAX_SAFE_INTEGER;
  return [...sources].sort((a, b) => at(a) - at(b));
}

/**
 * `pending`'s SCoPs modelled anew on `fn` as it is now, after its analyses are dropped: those
 * whose entry the new detection finds again (the new fast paths and the regions already
 * versioned are not among them), and those it no longer finds.
 */
function rebuildPending(ctx: PassContext, fn: IrFunction, analysis: AnalysisKey<FunctionScopModels>, o: VersioningOptions, pending: readonly ScopSource[]): { fresh: ScopSource[]; lost: ScopSource[] } {
  const entries = new Set(pending.map((s) => s.model.scop.entry));
  ctx.am.invalidate(fn, 'none');
  const fresh = inCfgOrder(fn, scopSources(ctx, fn, analysis, o, (m) => entries.has(m.scop.entry)));
  const found = new Set(fresh.map((s) => s.model.scop.entry));
  return { fresh, lost: pending.filter((s) => !found.has(s.model.scop.entry)) };
}

/** Reports a SCoP left as it was, and why. */
function notVersioned(ctx: PassContext, fn: IrFunction, location: string, why: string, spending: Record<string, unknown>): void {
  ctx.stats.set('not-versioned', (ctx.stats.get('not-versioned') ?? 0) + 1);
  ctx.scopResults.push({ pass: 'versioning', function: fn.name, location, fields: { versioned: false, notVersioned: why, ...spending } });
  ctx.remarks.push({ pass: 'versioning', kind: 'missed', function: fn.name, location, message: `SCoP left as it was: ${why}` });
}

/** Removes blocks made for a SCoP whose fast path could not be generated. */
function undo(blocks: readonly BasicBlock[]): void {
  for (const block of blocks) for (const inst of block.instructions) dropAllOperands(inst);
  for (const block of blocks) if (block.parent) eraseBlock(block);
}

export const versioningPass: ModulePass = {
  name: 'versioning',
  description: 'run-time checked fast paths: each SCoP becomes if (alias, delinearization and assumption checks) code generated from its model, else the original; after delicm (--passes=delicm,versioning) from DeLICM\'s transformed model, mapped scalars in array elements',
  options: [
    maxOperationsOption, scopMaxOperationsOption, codegenMaxOperationsOption, maxAliasPairsOption, rtcStatsOption, rtcCheckFunctionsOption, rerollOption, interchangeOption, delicmMaxOperationsOption,
    ...moduleBudgetOptions,
  ],
  run(module: Module, ctx: PassContext) {
    const analysis = modelAnalysisFrom(ctx);
    const wantStats = booleanOption(ctx, rtcStatsOption, false);
    const o: VersioningOptions = {
      maxOperations: codegenMaxOperationsFrom(ctx),
      maxAliasPairs: nonNegativeIntegerOption(ctx, maxAliasPairsOption, 32),
      stats: wantStats ? new RtcStats(module) : undefined,
      reroll: booleanOption(ctx, rerollOption, true),
      checkFunctions: booleanOption(ctx, rtcCheckFunctionsOption, false),
      interchange: booleanOption(ctx, interchangeOption, true),
    };
    let index = 0;
    let changed = false;
    const functions = module.functions.filter((f) => !f.isDeclaration);
    for (const fn of functions) {
      let se = ctx.am.get(scalarEvolutionAnalysis, fn);
      let pending = inCfgOrder(fn, scopSources(ctx, fn, analysis, o));
      // Reports name a SCoP by its location in the input: a model rebuilt on the changed IR keeps it.
      const inputLocation = new Map(pending.map((s) => [s.model.scop.entry, s.model.location] as const));
      // Entries of the SCoPs modelled anew since the last SCoP was versioned: a model built on the
      // IR as it is cannot go stale again before the IR changes, so a second rebuild would not help.
      const rebuilt = new Set<BasicBlock>();
      let k = index;
      while (pending.length > 0) {
        const chosen = pending[0]!;
        let source = chosen;
        const { model } = source;
        const location = inputLocation.get(model.scop.entry) ?? model.location;
        try {
          let v: VersionedScop;
          try {
            v = versionScop(module, fn, source, location, se, k, o, ctx);
            if (source.delicmNotTaken) v = { ...v, interchangeRefused: [...v.interchangeRefused, `DeLICM's model not taken: ${source.delicmNotTaken}`] };
          } catch (e) {
            if (!(e instanceof NotVersioned) || !chosen.fallback) throw e;
            ctx.log.debug({ function: fn.name, scop: location, why: e.message }, 'no fast path from DeLICM\'s model: from the plain model');
            source = chosen.fallback;
            v = versionScop(module, fn, source, location, se, k, o, ctx);
            v = { ...v, interchangeRefused: [...v.interchangeRefused, `DeLICM's model not taken: it keeps no fast path (${e.message})`] };
          }
          changed = true;
          rebuilt.clear();
          ctx.stats.set('versioned', (ctx.stats.get('versioned') ?? 0) + 1);
          ctx.scopResults.push({
            pass: 'versioning', function: fn.name, location,
            fields: {
              versioned: true, runtimeCheck: v.runtimeCheck, runtimeCheckParts: v.parts, codeGrowth: v.codeGrowth, fastPathParallelLoops: v.parallelLoops, rerolledLoops: v.rerolledLoops,
              interchangedLoops: v.interchanged, ...(v.interchangeRefused.length > 0 ? { interchangeRefused: v.interchangeRefused } : {}), fastPathFrom: source.from, ...islSpending(model),
            },
          });
          ctx.remarks.push({
            pass: 'versioning', kind: 'applied', function: fn.name, location,
            message: `fast path under run-time check: ${v.runtimeCheck}; parts: ${v.parts.map((p) => p.label).join(', ') || '(none)'}; code growth: ${v.codeGrowth} instructions; parallel loops: ${v.parallelLoops}`,
          });
        } catch (e) {
          if (e instanceof StaleModelError && !rebuilt.has(model.scop.entry)) {
            // The IR changed under this model (an earlier SCoP of fn was versioned): the function's
            // analyses are computed anew on the IR as it is now, for this SCoP and those after it.
            ctx.log.debug({ function: fn.name, scop: location, why: e.message }, 'model stale after an earlier SCoP\'s versioning: rebuilt');
            for (const s of pending) rebuilt.add(s.model.scop.entry);
            const { fresh, lost } = rebuildPending(ctx, fn, analysis, o, pending);
            // Profitability finds each SCoP's result by its index: a lost SCoP still takes one.
            for (const gone of lost) {
              notVersioned(ctx, fn, inputLocation.get(gone.model.scop.entry) ?? gone.model.location, 'after an earlier SCoP of its function was versioned, it is no longer detected as a SCoP', {});
              k++;
            }
            pending = fresh;
            se = ctx.am.get(scalarEvolutionAnalysis, fn);
            continue;
          }
          const why = e instanceof StaleModelError ? `${e.message}, even with its model rebuilt` : e instanceof NotVersioned ? e.message : undefined;
          if (why === undefined) throw e;
          notVersioned(ctx, fn, location, why, islSpending(model));
        }
        pending = pending.slice(1);
        k++;
      }
      index = k;
      // Memory stays proportional to one function: its models (an isl context) are freed once it is done.
      ctx.am.invalidate(fn, 'none');
    }
    o.stats?.finish();
    return changed || o.stats ? 'none' : 'all';
  },
};

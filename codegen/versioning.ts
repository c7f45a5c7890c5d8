// The versioning rewrite: a SCoP becomes `if (run-time check) fast path else original`.
//
//   pred ──► tsopt.check ──(check holds)──► fast path (from the model's isl AST) ──┐
//                 └──────(otherwise)──────► original SCoP (untouched) ────────────┴─► exit
//
// The check is the conjunction of the alias checks and the model's assumptions
// (polyhedral/check-parts.ts as isl, check-emit.ts as IR), computed in i128. The fast path is
// generated from the isl AST of the SCoP's schedule (the original order, the interchange's, or
// the schedule optimizer's tree): loops, conditions, and each statement's instructions with
// operands remapped to the new induction variables. It carries alias scopes for the distinct
// arrays and `llvm.loop.parallel_accesses` on loops that carry no dependence, so opt-14's
// vectorizers can make SIMD code of it; with --parallel such loops run on OpenMP's threads
// (parallel-loop.ts). Scalars crossing statements go through stack slots (block-generator.ts);
// DeLICM's mapped scalars live in array elements (mapped-accesses.ts) and need no slot.
// The pass (passes/versioning.ts) chooses the model and the plans and reports what came out.
import { AstBuild, DimType, IslError, IslQuotaError, readAstNode, type AstExprTree, type AstNodeTree } from 'isl-wasm';
import {
  IrBuilder, addIncoming, constInt, createBlock, dropAllOperands, eraseBlock, eraseInstruction, incomingValueFor, insertBlock, intType, predecessors, removePhiIncoming, replacePhiIncomingBlock,
  setOperand, terminator, type BasicBlock, type Instruction, type IrFunction, type Module, type Value,
} from '../ir';
import type { ScalarEvolution } from '../analysis/scalar-evolution';
import type { ScopLoop } from '../analysis/scop-detection-types';
import { ScevKind, type ScevLoop } from '../analysis/scev';
import type { ScopArray, ScopModel, ScopStatementModel } from '../polyhedral/model';
import { CheckTooLargeError, unboundedAliasedArray, type CheckedParts, type CheckPart } from '../polyhedral/check-parts';
import { blockOuterLoops, nestLabel, type InterchangedNest, type InterchangePlan } from '../transform/interchange';
import { rowScopes, splitRowAddress } from './matmul-rows';
import { fenceRowStore, jamScopes, type JammedRow } from './row-jam';
import { markedParallelLoops, threadableMarks, vectorizedMarks, type ScheduleDecision } from '../transform/schedule-optimizer';
import { unrollMark } from '../transform/matmul';
import { AstExprEmitter } from './ast-expr';
import { unrollMarked } from './ast-unroll';
import { AstToIr, mentions, statementCalls, visitLoops, type Share } from './ast-to-ir';
import { copyStatement, UnsupportedCodeError, type StatementScalars } from './block-generator';
import { conjunction, emitParts, reportedPart, sizeValue, type ReportedPart } from './check-emit';
import { checkFunctionName, outlineCheck, removeCheckFunction, type OutlinedCheck } from './check-outline';
import type { RtcStats } from './check-stats';
import { checkOperandsDominate } from './dominance';
import { hoistLiveOuts, mergeLiveOuts, planLiveOuts, type LiveOuts } from './live-outs';
import { mappedAccessHooks, planMappedAccesses, type MappedAccessPlan } from './mapped-accesses';
import { packingCodegen, planPacking, type PackingPlan } from './packing';
import { fastPathName, MetadataTable } from './metadata';
import { outerIterations } from './outer-iteration';
import { rangeInterchangedNests, type ColumnRange } from './column-ranges';
import { domainExtents, withCopyExtents, parallelCandidates, parallelCodegen } from './parallel-loop';
import { emitOneThread, oneThreadAst, oneThreadBranches, oneThreadFlag } from './one-thread';
import { privatizeFor, privatizedLoops } from './privatize';
import { planRerolls, rolledHeaderValues, type RerolledLoop } from './reroll';
import { NotExpandableError, ScevExpander } from './scev-expander';

/** What versioning did to one SCoP (the report's per-SCoP fields). */
export interface VersionedScop {
  readonly function: string;
  readonly location: string;
  /** The combined check as a C expression ('1': always true). */
  readonly runtimeCheck: string;
  readonly parts: readonly ReportedPart[];
  /** Instructions added to the function. */
  readonly codeGrowth: number;
  readonly parallelLoops: number;
  /** Nests whose loops the fast path runs interchanged: `outer <-> inner` by their labels. */
  readonly interchanged: readonly string[];
  /** Nests worth interchanging that were not, and why. */
  readonly interchangeRefused: readonly string[];
  /** Loops -O3 had runtime-unrolled that the fast path runs rolled (codegen/reroll.ts). */
  readonly rerolledLoops: number;
  /** --parallel: each loop chosen to run on OpenMP's threads, by its label, and why it runs serially if it does. */
  readonly ompLoops: readonly { readonly loop: string; readonly why?: string; readonly share?: Share; readonly privatized?: readonly string[]; readonly sync?: string }[];
  /** --parallel with time tiles in wavefronts: the order the fast path runs on one thread (codegen/one-thread.ts), or why it has none of its own. */
  readonly oneThreadOrder?: string;
  /** The schedule optimizer's decision (absent with --schedule=false), whether the fast path took its tree, and if not why. */
  readonly schedule: { readonly decision: ScheduleDecision; readonly used: boolean; readonly notUsed: string | undefined } | undefined;
}

/**
 * Whether a loop of the function that the SCoP does not cover holds it (runs it again and again).
 * Such a SCoP's check is computed in a function of its own: inline, opt-14's LICM hoists every
 * part of the check that the outer loop does not change out of that loop, where the values stay
 * live across its whole body and the register allocator spills the outer loop's own values in
 * its hot paths (zlib's inflate_fast, whose window copies are SCoPs inside the decoding loop:
 * 11.7% more instructions than clang -O3's build, a third of it from the hoisted checks). A call
 * made only where the SCoP starts is not hoisted out of a loop that does not always reach it.
 */
function insideOuterLoop(se: ScalarEvolution, region: ReadonlySet<BasicBlock>, entry: BasicBlock): boolean {
  for (let loop = se.loops.loopFor(entry); loop; loop = loop.parent) if (!region.has(loop.header)) return true;
  return false;
}

/** Why a SCoP keeps no fast path (the report's `notVersioned`). */
export class NotVersioned extends Error {}

function instructionCount(fn: IrFunction): number {
  return fn.blocks.reduce((n, b) => n + b.instructions.length, 0);
}

/** Why the region cannot be wired as `if (check) fast else original`, or undefined. */
function wiringProblem(model: ScopModel, region: ReadonlySet<BasicBlock>): string | undefined {
  const { scop } = model;
  if (!scop.exit) return 'the SCoP runs to the function\'s return';
  const outside = predecessors(scop.entry).filter((p) => !region.has(p));
  if (outside.length === 0) return 'its entry has no predecessor outside it';
  // An invoke (C++: `new` before the loop) reaches the entry as its normal destination: a funnel block takes the edge.
  if (outside.some((p) => terminator(p)?.opcode !== 'br' && terminator(p)?.opcode !== 'invoke')) return 'a predecessor of its entry does not end in a branch';
  for (const a of model.arrays) {
    if (a.kind === 'phi') {
      const phi = a.value as Instruction;
      if (phi.opcode !== 'phi') return `the PHI location ${a.name} is not a PHI`;
      if (!phi.parent || (!region.has(phi.parent) && phi.parent !== scop.exit)) return `the PHI ${a.name} lies outside the SCoP`;
    }
  }
  return undefined;
}

/**
 * With --omp-block-interchanged, the iterations of an interchanged nest's outer loop that
 * carries nothing run in blocks of this many, each block's interchanged nest on a thread
 * (transform/interchange.ts, blockOuterLoops): a multiple of every vector width, and 19 blocks
 * at most over PolyBench gramschmidt's 1,199 columns at LARGE, which a dynamic share deals out
 * evenly to two threads (counted bound 1.90x with a zigzag).
 */
const outerBlock = 64;

/**
 * Whether the threads have no loop around `loop` to take instead: `loop` is inside other loops of
 * the SCoP, and each of them carries a dependence, also with private arrays (codegen/privatize.ts).
 * Blocks of an outermost loop, or inside a loop that runs on threads, would only change one
 * thread's order.
 */
function onlyInside(model: ScopModel, loop: ScopLoop, privatize: boolean): boolean {
  if (loop.parent === undefined) return false;
  const parallel = new Set(model.dependences.parallelLoops);
  let top = loop;
  for (let p: ScopLoop | undefined = loop.parent; p !== undefined; p = p.parent) {
    if (parallel.has(p)) return false;
    top = p;
  }
  return !(privatize && 'arrays' in privatizeFor(model, top));
}

/** Loops of the AST that run the iterations of model loops carrying no dependence, and the block loops of `blocked`. */
function parallelAstLoops(ast: AstNodeTree, model: ScopModel, rolled: readonly RerolledLoop[], interchange: InterchangePlan | undefined, blocked: readonly InterchangedNest[] = []): Set<AstNodeTree> {
  const parallel = new Set(model.dependences.parallelLoops);
  // An interchanged inner loop now runs outside its outer one: what it carried there is not known.
  for (const n of interchange?.nests ?? []) for (const m of n.inners) parallel.delete(m);
  // A rolled loop runs the instances of two model loops: its own check decides.
  for (const r of rolled) {
    if (r.parallel) parallel.add(r.loop);
    else parallel.delete(r.loop);
  }
  const byName = new Map(model.statements.map((s) => [s.name, s] as const));
  const inBlocked = new Set(blocked.flatMap((n) => n.statements.map((st) => st.name)));
  const out = new Set<AstNodeTree>();
  visitLoops(ast, (n) => {
    const it = n.iterator.kind === 'id' ? n.iterator.name : '';
    const calls = statementCalls(n.body);
    const ok = calls.length > 0 && calls.every((c) => {
      const st = byName.get(c.name);
      const m = c.args.findIndex((a) => a.kind === 'id' && a.name === it);
      return st !== undefined && m >= 0 && parallel.has(st.loops[m]!);
    });
    // A block loop of an outer loop that carries nothing (blockOuterLoops): its counter is no
    // statement's, and every statement in it is under such a nest.
    const blockLoop = calls.length > 0 && calls.every((c) => inBlocked.has(c.name) && !c.args.some((a) => mentions(a, it)));
    if (ok || blockLoop) out.add(n);
    return true;
  });
  return out;
}

export interface VersioningOptions {
  readonly maxOperations: number;
  readonly maxAliasPairs: number;
  readonly stats: RtcStats | undefined;
  readonly reroll: boolean;
  /** --rtc-check-functions: each check in a function of its own (codegen/check-outline.ts). */
  readonly checkFunctions: boolean;
  /**
   * --rtc-nested-check-functions: the check of a SCoP that a loop outside it runs again and again
   * in a function of its own (`insideOuterLoop`); default true.
   */
  readonly nestedCheckFunctions?: boolean;
  /** --parallel: outermost parallel loops on OpenMP's threads (codegen/parallel-loop.ts), with the work per thread below which they run serially. */
  readonly parallel: boolean;
  readonly parallelMinWork: number;
  /** --omp-privatize: loops that carry only private arrays' dependences run on the threads too (codegen/privatize.ts). */
  readonly privatize?: boolean;
  /** --omp-dynamic: loops whose unequal iterations change from run to run claim them one at a time (codegen/ast-to-ir.ts, shareOf). */
  readonly dynamic?: boolean;
  /** --omp-tile-sync: time tiles in wavefronts synchronised point to point (one team) or by a team per wavefront (codegen/ast-to-ir.ts, generatePointSync). */
  readonly tileSync?: 'point' | 'barrier';
  /** --omp-block-interchanged: interchanged nests whose outer loop carries nothing run in blocks of it on the threads (transform/interchange.ts, blockOuterLoops). */
  readonly blockInterchanged?: boolean;
  /** --omp-column-ranges: interchanged nests whose outer loop carries nothing run one range of it per thread (codegen/column-ranges.ts). */
  readonly columnRanges?: boolean;
  /** --parallel-balance-threads: the threads a parallel loop's share is counted for against the loops inside it (codegen/parallel-balance.ts); undefined: not counted. */
  readonly parallelBalanceThreads?: number;
}

/** What the pass gives the rewrite besides the model: the plans it asks for, and its log. */
export interface VersioningHooks {
  /**
   * The interchange plan (undefined: none, or isl gave up) and the schedule optimizer's decision
   * (undefined with --schedule=false; its tree is the rewrite's to free), asked for once the cheap
   * refusals are behind and the SCoP's budget is not spent.
   */
  plans(model: ScopModel): { interchange: InterchangePlan | undefined; decision: ScheduleDecision | undefined };
  /**
   * `model`'s run-time check parts (polyhedral/check-parts.ts), made once per model under the
   * SCoP's budget and `maxOperations` (step `check and AST`); throws what isl or the check threw.
   */
  checkParts(model: ScopModel): CheckedParts;
  /** The decision without the matmul path at parametric sizes (its AST may run over the quota where the generic tiling's does not). */
  genericPlan?(model: ScopModel, interchange: InterchangePlan | undefined): ScheduleDecision | undefined;
  debug(fields: Record<string, unknown>, message: string): void;
}

/** What a failure of the check or the AST makes of the SCoP: `NotVersioned` with why (any other error as it is). */
function notVersionedBy(e: unknown, model: ScopModel, o: VersioningOptions): unknown {
  if (e instanceof IslError && model.budget.exhaustedBy) return new NotVersioned(model.budget.reason());
  if (e instanceof IslQuotaError) return new NotVersioned(`isl exceeded its quota of ${o.maxOperations} operations for the check and the AST (--codegen-max-operations)`);
  if (e instanceof CheckTooLargeError) return new NotVersioned(e.message);
  if (e instanceof IslError) return new NotVersioned(`isl failed on the check or the AST: ${e.message}`);
  if (e instanceof UnsupportedCodeError) return new NotVersioned(e.message);
  return e;
}

/**
 * SCoP `index` of `fn` as `if (check) fast path else original`, the fast path generated from
 * `model` (the plain model `original`, or DeLICM's). `location`: the SCoP's location in the
 * input (the model's, unless it was rebuilt on changed IR). Throws `NotVersioned` with the reason
 * when the SCoP keeps no fast path (the IR is then as it was), `StaleModelError` when the model
 * names a value that no longer dominates the SCoP.
 */
export function versionScop(module: Module, fn: IrFunction, model: ScopModel, original: ScopModel, location: string, se: ScalarEvolution, index: number, o: VersioningOptions, hooks: VersioningHooks): VersionedScop {
  const region = new Set(model.scop.blocks);
  const problem = wiringProblem(original, region);
  if (problem) throw new NotVersioned(problem);
  const liveOuts = liveOutsOrRefuse(model, region, se);
  const isl = model.ctx;
  if (model.budget.exhaustedBy) throw new NotVersioned(model.budget.reason());
  // Cheap rejection first: no check can cover an over-approximated aliased array, so spend nothing on the plan and the check.
  const unbounded = unboundedAliasedArray(model);
  if (unbounded) throw new NotVersioned(unbounded);
  // The check's parts before any plan: a check isl gives up on leaves no fast path, whatever the plans.
  let checked: CheckedParts;
  try {
    checked = hooks.checkParts(model);
  } catch (e) {
    throw notVersionedBy(e, model, o);
  }
  let parts: readonly CheckPart[];
  let ast: AstNodeTree;
  let mapped: Map<ScopStatementModel, MappedAccessPlan[]>;
  let rolled: RerolledLoop[];
  let extents: Map<string, AstExprTree[]>;
  let packing: PackingPlan[] = [];
  // Column walks: the outer loop innermost (transform/interchange.ts), the cached plan, made under a
  // quota of its own (isl failing there keeps the original order); isl's scheduler and tiling
  // (transform/schedule-optimizer.ts): a tree kept until the AST is built.
  const planned = hooks.plans(model);
  const interchange = planned.interchange;
  let decision = planned.decision;
  let scheduleNotUsed: string | undefined;
  // The interchanged nests whose outer loop runs in blocks on threads (blockOuterLoops).
  let blockedNests: readonly InterchangedNest[] = [];
  // isl's AST of an optimized tree (a time-tiled stencil's skewed tiles) may cost more than the
  // original order's: past the quota, the fast path is built once more in the base order.
  // With --parallel and time tiles in wavefronts: the one-thread tree's AST too (`oneThreadAst`).
  let oneThreadNotUsed: string | undefined;
  // The matmul path's AST at constant sizes grows with its products: each product's micro-tiles
  // get the quota one product gets (PolyBench 3mm's three: 1.07M operations with AVX-512's tiles,
  // over one quota, so it kept the original order at a quarter of the path's speed). At
  // parametric sizes one quota stays the limit: there uBLAS 2mm's two products (1.11M) take the
  // generic tiling, which runs faster than the path's partial micro-tiles do there.
  const matmulProducts = decision?.schedule && model.context.dim(DimType.param) === 0 ? decision.matmul.length : 0;
  const optimizedQuota = o.maxOperations > 0 && matmulProducts > 1 ? o.maxOperations * matmulProducts : o.maxOperations;
  // The AST gets what the check's parts left of the quota, as when both were made in one run.
  const runCheckAndAst = (optimized: ScheduleDecision['schedule'], oneThread?: ScheduleDecision['oneThreadSchedule'], quota = o.maxOperations) =>
    model.budget.run(isl, 'check and AST', quota > 0 ? Math.max(quota - checked.operations, 1) : 0, () =>
      isl.scope(() => {
        const p = checked.parts;
        const plans = planMappedAccesses(model);
        // The interchanged nests' statements stay unrolled.
        const interchanged = new Set(interchange?.nests.flatMap((n) => n.statements));
        // Loops -O3 runtime-unrolled: the remainder's statement over the whole index range instead.
        const rerolls = o.reroll ? planRerolls(model, se, (st) => (plans.get(st)?.length ?? 0) > 0 || interchanged.has(st)) : [];
        // [params] -> { Stmt_S[i...] : ... } with each rerolled pair replaced by its rolled statement
        let domains = model.domains;
        for (const r of rerolls) domains = domains.subtract(r.unrolled.domain.toUnionSet()).subtract(r.remainder.domain.toUnionSet()).union(r.domain.toUnionSet());
        // { Stmt_S[i...] -> [t0, ...] } restricted to the domains: the original order, or the interchanged one.
        const blocks = o.parallel && o.blockInterchanged === true && interchange && !optimized ? blockOuterLoops(model, interchange, outerBlock, (l) => onlyInside(model, l, o.privatize === true)) : undefined;
        blockedNests = blocks?.nests ?? [];
        const schedule = (blocks?.schedule ?? interchange?.schedule ?? model.schedule).intersectDomain(domains);
        // The optimizer's tree names the model's statements: not taken where loops are rolled.
        if (optimized && rerolls.length > 0) scheduleNotUsed = 'runtime-unrolled loops run rolled';
        const build = AstBuild.fromContext(model.context);
        // The matmul path's marked micro-kernel loops are unrolled here, not by isl (codegen/ast-unroll.ts).
        const taken = optimized && rerolls.length === 0 ? unrollMarked(readAstNode(build.nodeFromSchedule(optimized)), unrollMark) : readAstNode(build.nodeFromScheduleMap(schedule));
        const tree = optimized && oneThread && o.parallel && rerolls.length === 0 ? oneThreadAst(unrollMarked(readAstNode(AstBuild.fromContext(model.context).nodeFromSchedule(oneThread)), unrollMark), taken) : taken;
        // The matmul path's copy statements (codegen/packing.ts), in the optimizer's tree only.
        packing = optimized && rerolls.length === 0 ? planPacking(model, decision?.matmul.flatMap((m) => m.packing) ?? []) : [];
        return [p, tree, plans, rerolls, o.parallel ? withCopyExtents(domainExtents(model), packing) : new Map<string, AstExprTree[]>()] as const;
      }),
    );
  try {
    try {
      try {
        [parts, ast, mapped, rolled, extents] = runCheckAndAst(decision?.schedule, decision?.oneThreadSchedule, optimizedQuota);
      } catch (e) {
        if (!(e instanceof IslQuotaError && decision?.oneThreadSchedule && o.parallel)) throw e;
        // Both orders' ASTs past the quota: the wavefronts' alone.
        oneThreadNotUsed = `isl exceeded its quota of ${optimizedQuota} operations for the ASTs of both tile orders (--codegen-max-operations)`;
        [parts, ast, mapped, rolled, extents] = runCheckAndAst(decision.schedule, undefined, optimizedQuota);
      }
    } catch (e) {
      if (!(e instanceof IslQuotaError && decision?.schedule)) throw e;
      // The matmul path at parametric sizes past the quota (two products of uBLAS's 2mm): the generic tiling's tree next.
      const generic = decision.matmul.length > 0 && model.context.dim(DimType.param) > 0 ? hooks.genericPlan?.(model, interchange) : undefined;
      let built: ReturnType<typeof runCheckAndAst> | undefined;
      if (generic?.schedule) {
        decision.schedule.dispose();
        decision.oneThreadSchedule?.dispose();
        decision = generic;
        try {
          built = runCheckAndAst(decision.schedule);
        } catch (again) {
          if (!(again instanceof IslQuotaError)) throw again;
        }
      }
      if (!built) scheduleNotUsed = `isl exceeded its quota of ${optimizedQuota} operations for the AST of the new schedule (--codegen-max-operations${optimizedQuota !== o.maxOperations ? `, once per matrix product` : ''})`;
      [parts, ast, mapped, rolled, extents] = built ?? runCheckAndAst(undefined);
    }
  } catch (e) {
    throw notVersionedBy(e, model, o);
  } finally {
    decision?.schedule?.dispose();
    decision?.oneThreadSchedule?.dispose();
  }
  const scheduled = decision?.schedule !== undefined && scheduleNotUsed === undefined;

  const before = instructionCount(fn);
  const entry = model.scop.entry;
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
    outlined = o.checkFunctions || (o.nestedCheckFunctions !== false && insideOuterLoop(se, region, entry)) ? outlineCheck(module, check, combined, checkFunctionName(fn, index)) : undefined;
    const cond = outlined?.value ?? combined;
    // With the one-thread order (codegen/one-thread.ts), how many runs took it.
    const twoOrders = oneThreadBranches(ast) !== undefined;
    o.stats?.instrument(b, fn, location, index, cond, all, [...(o.parallel ? ['parallel'] : []), ...(twoOrders ? ['one-thread'] : [])]);
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
    const mappedSizes = mappedArraySizes([...[...mapped.values()].flat().map((p) => p.access.array), ...packing.map((p) => p.access.array)], (size) => b.trunc(sizeValue(size, inCheck, b), intType(64)));

    // The fast path.
    const md = new MetadataTable(module);
    const arrays = model.arrays.filter((a) => a.kind === 'array');
    const scopes = md.scopes(fastPathName(fn.name, location), arrays.map((a) => a.name));
    const scopeOf = new Map(arrays.map((a, k) => [a, scopes[k]!] as const));
    const arrayOfInst = new Map<Instruction, (typeof arrays)[number]>();
    for (const st of model.statements) for (const acc of st.accesses) if (acc.instruction && acc.array.kind === 'array') arrayOfInst.set(acc.instruction, acc.array);
    // Interchanged nests whose outer loop carries nothing: a range of its values per thread (codegen/column-ranges.ts).
    const blockedOuter = new Set(blockedNests.map((n) => n.outer));
    const rangedNests = o.parallel && o.columnRanges === true && !scheduled && interchange
      ? interchange.nests.filter((n) => model.dependences.parallelLoops.includes(n.outer) && !blockedOuter.has(n.outer) && onlyInside(model, n.outer, o.privatize === true))
      : [];
    let ranged = rangeInterchangedNests(ast, rangedNests);
    if (ranged.ranges.size > 0) {
      // Range loops with too little work for the threads are not made (see `rangeInterchangedNests`).
      const worth = parallelCandidates(ranged.ast, new Set(ranged.ranges.keys()), { extents, minWork: o.parallelMinWork, small: new Map() }, ranged.ranges);
      const skip = new Set([...ranged.ranges.keys()].flatMap((n, k) => (worth.has(n) ? [] : [k])));
      if (skip.size > 0) ranged = rangeInterchangedNests(ast, rangedNests, skip);
    }
    ast = ranged.ast;
    const parallel = scheduled ? markedParallelLoops(ast, vectorizedMarks) : parallelAstLoops(ast, model, rolled, interchange, blockedNests);
    const rolledByName = new Map(rolled.map((r) => [r.statement.name, r] as const));
    const groups = new Map<AstNodeTree, string>();
    for (const n of parallel) groups.set(n, md.accessGroup());
    const byName = new Map<string, ScopStatementModel>(model.statements.map((s) => [s.name, s] as const));
    const slots = scalarSlots(fn, model, region, fb0(fastEntry));
    createdSlots = [...slots.values()];
    let enclosingGroups: string[] = [];
    // The matmul micro-tile's row a statement instance runs, and the array it writes (codegen/matmul-rows.ts).
    const rows = scheduled ? rowScopes(ast, md, fastPathName(fn.name, location)) : undefined;
    // The row jam's jammed rows (codegen/row-jam.ts): their element and the finished ones read apart.
    const jam = scheduled && decision?.rowJammed ? jamScopes(ast, md, fastPathName(fn.name, location), decision.rowJammed) : undefined;
    let row: { array: ScopArray; scopes: { own: string; others: string[] }; finished?: JammedRow['finished']; sameAddress?: JammedRow['sameAddress'] } | undefined;
    const rowAddresses = new Map<Value, Value>();
    const decorateAccess = (copy: Instruction, array: ScopArray, original?: Instruction): void => {
      const mine = row?.array !== array ? undefined : original && row.finished?.reads.has(original) ? row.finished.scopes : row.scopes;
      if (mine && row?.finished && mine === row.scopes) fenceRowStore(module, copy);
      if (mine) splitRowAddress(copy, rowAddresses);
      if (mine && row?.sameAddress && mine === row.scopes) row.sameAddress(copy);
      copy.metadata.push({ name: 'alias.scope', ref: md.list([scopeOf.get(array)!, ...(mine ? [mine.own] : [])]) });
      const others = [...arrays.filter((x) => x !== array).map((x) => scopeOf.get(x)!), ...(mine?.others ?? [])];
      if (others.length > 0) copy.metadata.push({ name: 'noalias', ref: md.list(others) });
      if (enclosingGroups.length === 1) copy.metadata.push({ name: 'llvm.access.group', ref: enclosingGroups[0]! });
      else if (enclosingGroups.length > 1) copy.metadata.push({ name: 'llvm.access.group', ref: md.list(enclosingGroups) });
    };
    // Packing's buffers: allocated in a block between the check and the fast path, which runs the original code when malloc fails.
    const packAlloc = packing.length > 0 ? insertBlock(fn, createBlock(`${prefix}.pack`), fn.blocks.indexOf(fastEntry)) : undefined;
    if (packAlloc) made.push(packAlloc);
    const packs = packAlloc ? packingCodegen(module, packing, { parameter: lookup64, sizes: (a) => mappedSizes.get(a)!, decorate: decorateAccess }, new IrBuilder(packAlloc)) : undefined;
    const fb = new IrBuilder(fastEntry);
    // With the optimizer's tree, its marks say which loops may run on threads (never a tile's point loops).
    const threadable = scheduled ? markedParallelLoops(ast, threadableMarks) : parallel;
    // Outermost loops that carry nothing once arrays each iteration writes first are private (codegen/privatize.ts).
    const privatizable = o.parallel && o.privatize === true ? privatizedLoops(ast, model, threadable) : new Map();
    const privateArrays = new Map([...privatizable].flatMap(([n, p]) => ('arrays' in p ? [[n, p.arrays] as const] : [])));
    const small = new Map<Extract<AstNodeTree, { kind: 'for' }>, string>();
    const candidates = o.parallel
      ? parallelCandidates(ast, new Set([...threadable, ...privateArrays.keys(), ...ranged.ranges.keys()]), { extents, minWork: o.parallelMinWork, small, threads: o.parallelBalanceThreads, dynamic: o.dynamic ?? true }, ranged.ranges)
      : new Set<Extract<AstNodeTree, { kind: 'for' }>>();
    // A range loop generated as a plain loop would run its body once per value: every one made is a candidate
    // (no loop around it runs on threads: each carries a dependence and has no private arrays, `onlyInside`).
    for (const r of ranged.ranges.keys()) if (!candidates.has(r)) throw new Error(`a range loop of ${astLoopLabel(r, model, ranged.ranges)} is not run on threads`);
    // The offsets of the columns a column of tile wavefronts waits for (transform/wavefront.ts), with --omp-tile-sync=point.
    const columnDeltas = scheduled && o.tileSync !== 'barrier' ? decision?.timeTiled?.tileColumnDeltas : undefined;
    const par = parallelCodegen(module, fn, index, candidates, extents, lookup64, o.parallelMinWork, (pb) => o.stats?.count(pb, index, 'parallel'), privateArrays, o.dynamic ?? true, ranged.ranges, columnDeltas);
    let oneThread: Value | undefined;
    const gen = new AstToIr(fb, {
      parallel: par.hook,
      // The one-thread flag at the top of the fast path, where the AST's first node tests it.
      parameter: (name) => {
        if (name !== oneThreadFlag) return lookup64(name);
        if (!oneThread) {
          oneThread = emitOneThread(module, fb);
          o.stats?.count(fb, index, 'one-thread', oneThread);
        }
        return oneThread;
      },
      statement: (name, args, builder, enclosing) => {
        enclosingGroups = enclosing.flatMap((n) => groups.get(n) ?? []);
        row = undefined;
        if (packs?.copy(name, args, builder)) return;
        const roll = rolledByName.get(name);
        // A rolled statement runs the remainder's body (named after the unrolled loop when the remainder is a block).
        const st = roll?.remainder ?? byName.get(name);
        if (!st) throw new UnsupportedCodeError(`the AST names an unknown statement ${name}`);
        const r = rows?.rowOf(enclosing);
        const jammedRow = r === undefined ? jam?.rowOf(st.name, enclosing) : undefined;
        const written = r === undefined && !jammedRow ? undefined : st.accesses.find((a) => a.kind === 'write' && a.array.kind === 'array')?.array;
        row = written && r !== undefined ? { array: written, scopes: rows!.scopes(r) } : written && jammedRow ? { array: written, ...jammedRow } : undefined;
        // A rolled statement's last counter is the index from the loop's start, not the remainder's iteration.
        const counted = roll ? roll.statement.loops.slice(0, -1) : st.loops;
        const iterations = new Map<ScevLoop, Value>(counted.map((l, k) => [l.loop, args[k]!] as const));
        const mappedHooks = mappedAccessHooks(mapped.get(st) ?? [], args, {
          parameter: lookup64, sizes: (a) => mappedSizes.get(a)!, decorate: decorateAccess, newBlock: (n) => gen.newBlock(n), regionBlocks: region,
        });
        const scalars = statementScalars(st, slots, !packs ? mappedHooks : {
          ...mappedHooks, atStart: (hb, valueOf) => new Map([...mappedHooks.atStart(hb, valueOf), ...packs.reads(st, args, hb)]),
        });
        const header = roll
          ? (hb: IrBuilder) => rolledHeaderValues(roll, se, hb, args[args.length - 1]!, iterations, (v) => !(v.kind === 'instruction' && v.parent !== undefined && region.has(v.parent)))
          : undefined;
        copyStatement({
          module, se, regionBlocks: region,
          decorate: (copy, original) => {
            const array = arrayOfInst.get(original);
            if (array) decorateAccess(copy, array, original);
          },
        }, st.block, iterations, builder, header ? { ...scalars, atStart: (hb, valueOf) => new Map([...(scalars.atStart?.(hb, valueOf) ?? []), ...header(hb)]) } : scalars, st.instructions);
      },
      loop: (loop) => {
        const g = groups.get(loop.node);
        // No `llvm.loop.vectorize.enable`: it makes the loop vectorizer ignore its cost model, and
        // on -O3's runtime-unrolled statements (stride-2 and stride-4 accesses) the forced
        // interleaved-group code ran gemm 1.5x slower than the scalar loop SLP vectorizes.
        loop.latchBranch.metadata.push({ name: 'llvm.loop', ref: md.fastPathLoop(fastPathName(fn.name, location), loop.depth, g, jam?.loopProperties(loop.node)) });
      },
    }, prefix);
    generated = gen.blocks;
    gen.generate(ast);
    // Before anything outside the new blocks changes: a model built before an earlier SCoP of
    // this function was versioned may name a definition that no longer dominates this SCoP.
    checkOperandsDominate(fn, pred, [...made, ...generated], liveOuts.hoisted);
    packs?.release(new IrBuilder(fb.insertBlock!));
    mergeLiveOuts(liveOuts, model, region, fb.insertBlock!, slots, `${prefix}.after`);
    // Once the fast path is complete: what reads its scalar slots after a parallel loop is known.
    const omp = par.outline(new Set(createdSlots)).map((r) => ({ loop: astLoopLabel(r.loop, model, ranged.ranges), ...(r.why ? { why: r.why } : {}), ...(r.share ? { share: r.share } : {}), ...(r.privatized ? { privatized: r.privatized } : {}), ...(r.sync ? { sync: r.sync } : {}) }));
    for (const [n, why] of small) omp.push({ loop: astLoopLabel(n, model, ranged.ranges), why });
    for (const [n, p] of privatizable) if ('why' in p) omp.push({ loop: astLoopLabel(n, model), why: `not parallel with private arrays either: ${p.why}` });
    if (o.parallel && candidates.size === 0 && small.size === 0) {
      omp.push({ loop: '(none)', why: parallel.size === 0 ? 'every loop of the fast path carries a dependence' : 'no loop without a dependence has bounds known before it runs' });
    }
    // Wire: pred → check → (fast | original).
    b.positionAtEnd(check).condBr(cond, packAlloc ?? fastEntry, entry);
    if (packAlloc) new IrBuilder(packAlloc).condBr(packs!.allocated, fastEntry, entry);
    outlined?.eraseUnused();
    const t = terminator(pred)!;
    t.operands.forEach((op, k) => {
      if (op === entry) setOperand(t, k, check);
    });
    replacePhiIncomingBlock(entry, pred, check);
    if (packAlloc) for (const phi of entry.instructions.filter((i) => i.opcode === 'phi')) addIncoming(phi, incomingValueFor(phi, check)!, packAlloc);
    const growth = instructionCount(fn) - before;
    const oneThreadReport = (): { oneThreadOrder?: string } => {
      const tiled = scheduled ? decision?.timeTiled : undefined;
      if (!o.parallel || !tiled?.tileWavefront) return {};
      if (twoOrders) return { oneThreadOrder: `the tiles in time band order, ${tiled.oneThreadSizes?.join(' x ') ?? '?'}, when the runtime gives one thread` };
      return { oneThreadOrder: `none: ${oneThreadNotUsed ?? tiled.oneThreadRefused ?? 'not asked for (--time-tile-one-thread-order=false)'}` };
    };
    const runtimeCheck = conjunction(all.map((x) => x.c));
    hooks.debug({ function: fn.name, scop: location, runtimeCheck }, 'versioned');
    return {
      function: fn.name, location, runtimeCheck,
      parts: all.map(reportedPart), codeGrowth: growth, parallelLoops: parallel.size, rerolledLoops: rolled.length, ompLoops: omp, ...oneThreadReport(),
      interchanged: (interchange?.nests ?? []).map((n) => nestLabel(model, n)),
      interchangeRefused: (interchange?.refused ?? []).map((r) => `${nestLabel(model, r)}: ${r.why}`),
      schedule: decision ? { decision, used: scheduled, notUsed: scheduleNotUsed } : undefined,
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

/** The label of the model loop an AST loop runs (through the statements it runs; a range loop's: its nest's outer loop), or its iterator. */
function astLoopLabel(node: Extract<AstNodeTree, { kind: 'for' }>, model: ScopModel, ranges?: ReadonlyMap<AstNodeTree, ColumnRange>): string {
  const range = ranges?.get(node);
  if (range) return model.loopLabels.get(range.outer) ?? '?';
  const it = node.iterator.kind === 'id' ? node.iterator.name : '';
  for (const call of statementCalls(node.body)) {
    const st = model.statements.find((s) => s.name === call.name);
    const m = call.args.findIndex((a) => a.kind === 'id' && a.name === it);
    const loop = st && m >= 0 ? st.loops[m] : undefined;
    if (loop) return model.loopLabels.get(loop) ?? it;
  }
  return it;
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
 * The one predecessor of `entry` outside the region; when there are several, or one ending in an
 * invoke, a new block they all branch to, holding PHIs for the values `entry`'s PHIs took from them.
 */
function singleOutsidePredecessor(entry: BasicBlock, region: ReadonlySet<BasicBlock>): BasicBlock {
  const outside = [...new Set(predecessors(entry).filter((p) => !region.has(p)))];
  // Instructions are hoisted before the predecessor's terminator: not before an invoke, whose value is defined only past it.
  if (outside.length === 1 && terminator(outside[0]!)?.opcode === 'br') return outside[0]!;
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

/** The sizes (i64, from `size`) of the arrays some mapped access or packing copy goes to. */
function mappedArraySizes(accessed: readonly ScopArray[], size: (e: ScopArray['sizes'][number]) => Value): Map<ScopArray, Value[]> {
  const sizes = new Map<ScopArray, Value[]>();
  for (const array of accessed) {
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

/** Removes blocks made for a SCoP whose fast path could not be generated. */
function undo(blocks: readonly BasicBlock[]): void {
  for (const block of blocks) for (const inst of block.instructions) dropAllOperands(inst);
  for (const block of blocks) if (block.parent) eraseBlock(block);
}

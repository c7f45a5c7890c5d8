// OpenMP fast paths (`--parallel`): the outermost loops of a fast path that carry no dependence
// run their iterations on the threads of the OpenMP runtime, as Polly's `-polly-parallel` does
// with libgomp's interface (which LLVM's libomp also provides):
//
//   fast path:  n = trip count; serial = omp_in_parallel() || omp_get_max_threads() < 2
//                                        || n * (work per iteration) < min work * threads
//               store the values the loop uses into %data
//               br serial ? (call @sub(%data)) : (call @GOMP_parallel(@sub, %data, 0, 0))
//   @sub(i8* %data):  threads = serial ? 1 : omp_get_num_threads(); t = serial ? 0 : omp_get_thread_num()
//               the loop over the iterations [t * chunk, min(n, (t + 1) * chunk)), chunk = ceil(n / threads)
//
// A loop carries no dependence when no two of its iterations touch one array element, one of
// them writing, and no scalar flows between iterations (polyhedral/dependences.ts): every
// iteration computes what it computed in the original order, so results are bit for bit those
// of the original code; reductions carry a dependence and stay serial. Scalars the fast path
// keeps in stack slots get one slot per thread when the loop writes them. A SCoP already inside
// a parallel region (the user's own `#pragma omp parallel`) runs serially on its thread, so
// nested parallelism is never created. Too little work per thread (an estimate from the
// statements' iteration domains, `--parallel-min-work`) also runs serially. A band of time tile
// wavefronts runs in one team whose columns wait for each other point to point
// (`--omp-tile-sync=point`; codegen/ast-to-ir.ts, generatePointSync; `pointSyncPlan` here).
import { AstBuild, readAstExpr, Val, type AstExprTree, type AstNodeTree } from 'isl-wasm';
import {
  IrBuilder, attributeGroup, constInt, getIntrinsic, createBlock, createFunction, eraseInstruction, functionAttributes, functionType, getOrInsertFunction, i8, insertBlock, intType, literalStruct,
  pointerTo, replaceAllUsesWith, replaceUsesWithIf, successors, terminator, setOperand, voidType, doubleTy, calledValue,
  type BasicBlock, type Instruction, type IrFunction, type Module, type Value,
} from '../ir';
import type { ScopModel } from '../polyhedral/model';
import type { PackedOperand } from '../transform/matmul';
import { AstExprEmitter } from './ast-expr';
import { parallelBound, shareOf, statementCalls, visitLoops, type ParallelLoopHooks, type ParallelRegion, type PointSync, type Share } from './ast-to-ir';
import { privatizeRegion, type PrivateArray } from './privatize';
import { descendForBalance, evalAstExpr } from './parallel-balance';
import type { ColumnRange } from './column-ranges';

const i32 = intType(32);
const i64 = intType(64);
const i8p = pointerTo(i8);
type ForNode = Extract<AstNodeTree, { kind: 'for' }>;

/**
 * Per statement, the extent of each of its dimensions over its domain (max - min + 1, as isl
 * AST expressions over the parameters): their product bounds the statement's instances from
 * above (exact for rectangular domains). isl objects in the caller's scope.
 */
export function domainExtents(model: ScopModel): Map<string, AstExprTree[]> {
  const build = AstBuild.fromContext(model.context);
  const one = Val.one(model.ctx);
  const out = new Map<string, AstExprTree[]>();
  for (const st of model.statements) {
    // [params] -> { Stmt_S[i0, ...] : ... } where the model holds
    const domain = st.domain.intersectParams(model.context);
    const extents: AstExprTree[] = [];
    for (let k = 0; k < domain.tupleDim(); k++) {
      // [params] -> { [] -> [max_k - min_k + 1] }
      extents.push(readAstExpr(build.exprFromPwAff(domain.dimMax(k).sub(domain.dimMin(k)).addConstantVal(one))));
    }
    out.set(st.name, extents);
  }
  return out;
}

/**
 * `extents` with the matmul path's copy statements (Pack_n[row, k], transform/matmul.ts), which
 * are not the model's: each dimension's extent is that of the matmul statement's dimension it
 * copies along. Without them a copy loop's work read as 1 and it never ran on threads (gemm's A
 * and syr2k's two operands were copied on one thread per kc block between the teams of jr).
 */
export function withCopyExtents(extents: Map<string, AstExprTree[]>, copies: readonly { readonly operand: PackedOperand }[]): Map<string, AstExprTree[]> {
  for (const { operand } of copies) {
    const of = extents.get(operand.statement);
    const row = of?.[operand.row];
    const k = of?.[operand.roles.k];
    if (row && k) extents.set(operand.pack, [row, k]);
  }
  return extents;
}

/**
 * A loop that runs fewer iterations than this (known from constant bounds) leaves the threads
 * to a parallel loop inside it, if any: two or three blocks of unequal sizes (BLIS's ic blocks
 * of 1024 and 176 rows over syrk's 1200) cannot be shared out evenly.
 */
const fewIterations = 8;

/**
 * The `for` nodes of `ast` to run in parallel: in `parallel`, of a shape whose trip count is
 * known before the loop, none inside another; the outermost such loop unless it runs once (a
 * team for one iteration is all cost), or fewer than `fewIterations` times and has another inside.
 * With `work.threads`, a loop whose own share leaves its busiest thread more than the loops
 * inside would, counted (`descendForBalance`), leaves the threads to them, the count in `work.small`.
 * With `work`, a loop whose every run has a constant amount of work (`constantRunWork`) below
 * what the run-time test asks of two threads is left out too, with the reason in `work.small`:
 * it would always run serially, through its outlined function and the runtime's queries at every
 * run (PolyBench trmm's column loop inside its (i, k) loops at LARGE: 1,200 instances a run,
 * 500,500 runs, 39% more instructions on one thread than without -fopenmp).
 */
export function parallelCandidates(
  ast: AstNodeTree, parallel: ReadonlySet<AstNodeTree>,
  work?: {
    extents: ReadonlyMap<string, readonly AstExprTree[]>; minWork: number; small: Map<ForNode, string>;
    /** --parallel-balance-threads and --omp-dynamic: the threads the shares are counted for (codegen/parallel-balance.ts), none: not counted. */
    threads?: number; dynamic?: boolean;
  },
  /** Range loops (codegen/column-ranges.ts): their threads share their iterations' equal columns, not counted against the clipped loops inside. */
  ranges: ReadonlyMap<ForNode, ColumnRange> = new Map(),
): Set<ForNode> {
  const out = new Set<ForNode>();
  const threadable = (n: AstNodeTree): boolean => n.kind === 'for' && parallel.has(n) && parallelBound(n) !== undefined;
  visitLoopsIn(ast, [], (n, enclosing) => {
    if (!threadable(n)) return true;
    const trips = constantTrips(n);
    if (trips !== undefined && (trips < 2 || (trips < fewIterations && someLoop(n.body, threadable)))) return true;
    // Unequal or few iterations: the loops inside may share out better (codegen/parallel-balance.ts).
    const uneven = work?.threads !== undefined && !ranges.has(n) && someLoop(n.body, threadable) ? descendForBalance(n, enclosing, threadable, work.threads, work.minWork, work.dynamic ?? true) : undefined;
    if (uneven) {
      work!.small.set(n, uneven);
      return true;
    }
    const constant = work ? constantRunWork(n, enclosing, work.extents) : undefined;
    if (work && constant !== undefined && constant < 2 * work.minWork) {
      work.small.set(n, `${constant} statement instances a run, below --parallel-min-work on two threads (${2 * work.minWork})`);
      return true;
    }
    out.add(n);
    return false;
  });
  return out;
}

/** `visitLoops` with each loop's enclosing loops, outermost first. */
function visitLoopsIn(node: AstNodeTree, enclosing: readonly ForNode[], f: (loop: ForNode, enclosing: readonly ForNode[]) => boolean): void {
  visitLoops(node, (l) => {
    if (f(l, enclosing)) visitLoopsIn(l.body, [...enclosing, l], f);
    return false;
  });
}

/**
 * Per statement under `node`, the extents whose product bounds its instances in one run of
 * `node`: those of its dimensions that vary within that run, i.e. whose subscript uses the
 * iterator of `node` or of a loop inside it (a point loop's: its extent then bounds a tile's from
 * above), or no loop's around it. Leaving out every subscript that uses an outer iterator
 * counted a few thousand instances for BLIS's jr loop (i = ic + ir, k = kc + pr), which then ran
 * serially.
 */
function runExtents(node: ForNode, enclosing: readonly ForNode[], extents: ReadonlyMap<string, readonly AstExprTree[]>, skip?: number): AstExprTree[][] {
  const outer = new Set(enclosing.map(iteratorOf));
  const inner = new Set<string>();
  visitLoops(node, (l) => {
    inner.add(iteratorOf(l));
    return true;
  });
  return statementCalls(node.body).map((call) => call.args.flatMap((arg, k) => {
    if (k === skip || (mentionsAny(arg, outer) && !mentionsAny(arg, inner))) return [];
    const extent = extents.get(call.name)?.[k];
    return extent ? [extent] : [];
  }));
}

/** The work of one run of `node` (as the run-time test counts it) when every extent it counts is a constant. */
function constantRunWork(node: ForNode, enclosing: readonly ForNode[], extents: ReadonlyMap<string, readonly AstExprTree[]>): number | undefined {
  let sum = 0;
  for (const counted of runExtents(node, enclosing, extents)) {
    let product = 1;
    for (const e of counted) {
      if (e.kind !== 'int') return undefined;
      product *= Math.max(0, Number(e.value));
    }
    sum += product;
  }
  return sum;
}

/** The iterations of `n` when its bounds and step are integer constants. */
function constantTrips(n: ForNode): number | undefined {
  const bound = parallelBound(n);
  if (!bound || n.init.kind !== 'int' || bound.upper.kind !== 'int' || n.inc.kind !== 'int') return undefined;
  const last = Number(bound.upper.value) - (bound.strict ? 1 : 0);
  return Math.max(0, Math.floor((last - Number(n.init.value)) / Number(n.inc.value)) + 1);
}

/** Whether some loop in `ast` satisfies `test`. */
function someLoop(ast: AstNodeTree, test: (n: AstNodeTree) => boolean): boolean {
  let found = false;
  visitLoops(ast, (n) => {
    if (test(n)) found = true;
    return !found;
  });
  return found;
}

function mentionsAny(e: AstExprTree, names: ReadonlySet<string>): boolean {
  if (e.kind === 'id') return names.has(e.name);
  if (e.kind === 'op') return e.args.some((a) => mentionsAny(a, names));
  return false;
}

function iteratorOf(n: ForNode): string {
  return n.iterator.kind === 'id' ? n.iterator.name : '';
}

/** A region generated for one parallel loop, with the runtime calls made for it. */
interface PendingRegion extends ParallelRegion {
  /** omp_* calls and values only the parallel run needs (erased when the region stays inline). */
  readonly teamValues: { threads: Value; thread: Value };
}

/** One parallel loop's outcome: on the threads (its share, and how a band of wavefronts synchronises), or why not. */
export interface OutlinedLoop {
  loop: ForNode;
  why?: string;
  share?: Share;
  privatized?: string[];
  sync?: string;
}

/** How a point-synchronised band's columns wait, for the report. */
function syncText(s: PointSync): string {
  const offsets = s.deltas.map(([dw, dt]) => `(w - ${dw}, t${dt === 0 ? '' : dt > 0 ? ` - ${dt}` : ` + ${-dt}`})`);
  return `point to point: one team for wavefronts ${s.wFirst}..${s.wLast}, each column (w, t) waits for ${offsets.length > 0 ? offsets.join(', ') : 'none'}`;
}

export interface ParallelCodegen {
  /** The hook for `AstCodegenHooks.parallel`. */
  readonly hook: (node: ForNode) => ParallelLoopHooks | undefined;
  /**
   * Outlines every region generated so far into a function of its own, once the fast path is
   * complete (its live-outs merged). Returns, per loop, its label and whether it runs in
   * parallel or why not.
   */
  outline(slots: ReadonlySet<Instruction>): OutlinedLoop[];
}

/**
 * Parallel code generation for the fast path of SCoP `index` of `fn`. `candidates`: the loops to
 * run in parallel; `extents`: `domainExtents`; `param64`: a parameter's i64 value (it dominates the
 * fast path); `onFork`: code to run before each start of a team (--rtc-stats counts them);
 * `dynamic`: --omp-dynamic (codegen/ast-to-ir.ts, shareOf).
 */
export function parallelCodegen(
  module: Module, fn: IrFunction, index: number, candidates: ReadonlySet<ForNode>, extents: ReadonlyMap<string, readonly AstExprTree[]>,
  param64: (name: string) => Value, minWork: number, onFork: (b: IrBuilder) => void,
  privatized: ReadonlyMap<ForNode, readonly PrivateArray[]> = new Map(), dynamic = true, ranges: ReadonlyMap<ForNode, ColumnRange> = new Map(),
  columnDeltas?: readonly (readonly [number, number])[],
): ParallelCodegen {
  const regions: PendingRegion[] = [];
  const runtime = (name: string, ret: typeof i32): IrFunction => getOrInsertFunction(module, name, functionType(ret, []));
  const hook = (node: ForNode): ParallelLoopHooks | undefined => {
    if (!candidates.has(node)) return undefined;
    let team: { threads: Value; thread: Value } | undefined;
    const range = ranges.get(node);
    return {
      dynamic,
      ...(range ? { clipped: range.clipped } : {}),
      serial(b, n, enclosing) {
        // The work of one run of `node` (`runExtents`): per statement under it, the product of
        // the extents that vary within that run, summed; in double, which cannot overflow. A
        // range loop's iterations are the values of the statements' dimension `range.dim`: the
        // run's count n stands for that dimension's extent.
        const e64 = new AstExprEmitter(b, 64, param64);
        const d = doubleTy;
        let runWork: Value | undefined;
        for (const counted of runExtents(node, enclosing, extents, range?.dim)) {
          let product: Value = b.cast('sitofp', range ? n : constInt(i64, 1), d);
          for (const extent of counted) {
            const v = e64.value(extent);
            const positive = b.select(b.icmp('sgt', v, constInt(i64, 0)), v, constInt(i64, 0));
            product = b.binary('fmul', product, b.cast('sitofp', positive, d));
          }
          runWork = runWork ? b.binary('fadd', runWork, product) : product;
        }
        // No iteration at all: no work (a box of empty extents may still count one).
        const work = b.select(b.icmp('sgt', n, constInt(i64, 0)), runWork ?? b.cast('sitofp', constInt(i64, 1), d), b.cast('sitofp', constInt(i64, 0), d));
        const threads = b.call(runtime('omp_get_max_threads', i32), [], 'omp.max');
        const inParallel = b.icmp('ne', b.call(runtime('omp_in_parallel', i32), [], 'omp.in'), constInt(i32, 0));
        const few = b.icmp('slt', threads, constInt(i32, 2));
        const needed = b.binary('fmul', b.cast('sitofp', threads, d), b.cast('sitofp', constInt(i64, minWork), d));
        const small = b.fcmp('olt', work, needed);
        return b.or(b.or(inParallel, few), small, 'par.serial');
      },
      team(b, serial) {
        const threads = b.select(serial, constInt(i64, 1), b.sext(b.call(runtime('omp_get_num_threads', i32), [], 'omp.threads'), i64), 'par.threads');
        const thread = b.select(serial, constInt(i64, 0), b.sext(b.call(runtime('omp_get_thread_num', i32), [], 'omp.thread'), i64), 'par.thread');
        team = { threads, thread };
        return team;
      },
      region(r) {
        regions.push({ ...r, teamValues: team! });
      },
      pointSync(outer, inner, enclosing) {
        if (!columnDeltas || !dynamic || (privatized.get(inner)?.length ?? 0) > 0) return undefined;
        if (shareOf(inner, [...enclosing, outer], dynamic) !== 'dynamic') return undefined;
        return pointSyncPlan(outer, inner, columnDeltas);
      },
      pause(b) {
        if (module.triple?.startsWith('x86_64')) b.call(getIntrinsic(module, 'llvm.x86.sse2.pause', functionType(voidType, []), 'nounwind'), []);
      },
      yield(b) {
        b.call(getOrInsertFunction(module, 'sched_yield', functionType(i32, [])), []);
      },
    };
  };
  const outline = (slots: ReadonlySet<Instruction>): OutlinedLoop[] => regions.map((r, k) => {
    // Arrays private to each iteration (codegen/privatize.ts): a buffer per thread.
    const arrays = privatized.get(r.node) ?? [];
    const made = privatizeRegion(fn, r, arrays, slots);
    if (typeof made === 'string') {
      keepInline(r);
      return { loop: r.node, why: `its private arrays: ${made}` };
    }
    const buffers = made;
    const own = new Set([...slots, ...buffers]);
    const names = arrays.length > 0 ? { privatized: arrays.map((p) => p.array.name) } : {};
    const why = outlineProblem(r, own);
    if (why) {
      keepInline(r);
      return { loop: r.node, why, ...names };
    }
    outlineRegion(module, fn, r, own, `tsopt.par.${fn.name}.scop${index}.${k}`, onFork, new Set(buffers));
    return { loop: r.node, share: r.share, ...names, ...(r.sync ? { sync: syncText(r.sync) } : {}) };
  });
  return { hook, outline };
}

/** Most bytes of claims (4 a wavefront) and flags (1 a column) a point-synchronised band keeps in its caller's frame. */
const maxSyncBytes = 1 << 16;

/**
 * The constants of point-to-point synchronisation (codegen/ast-to-ir.ts, `generatePointSync`) for
 * the wavefronts `outer` over their columns `inner`, or undefined where they are not constants:
 * `outer`'s bounds constant, both loops of step 1, `inner`'s bounds constant at each wavefront,
 * and the claims and flags within `maxSyncBytes`.
 */
function pointSyncPlan(outer: ForNode, inner: ForNode, deltas: readonly (readonly [number, number])[]): PointSync | undefined {
  const ob = parallelBound(outer);
  const ib = parallelBound(inner);
  if (!ob || !ib || outer.inc.kind !== 'int' || outer.inc.value !== 1n || inner.inc.kind !== 'int' || inner.inc.value !== 1n || outer.iterator.kind !== 'id') return undefined;
  const first = evalAstExpr(outer.init, new Map());
  const bound = evalAstExpr(ob.upper, new Map());
  if (first === undefined || bound === undefined) return undefined;
  const last = ob.strict ? bound - 1n : bound;
  if (last < first || 4 * (Number(last - first) + 1) > maxSyncBytes) return undefined;
  let tMin: bigint | undefined;
  let tMax: bigint | undefined;
  const env = new Map<string, bigint>();
  for (let w = first; w <= last; w++) {
    env.set(outer.iterator.name, w);
    const lb = evalAstExpr(inner.init, env);
    const ub0 = evalAstExpr(ib.upper, env);
    if (lb === undefined || ub0 === undefined) return undefined;
    const ub = ib.strict ? ub0 - 1n : ub0;
    if (ub < lb) continue;
    if (tMin === undefined || lb < tMin) tMin = lb;
    if (tMax === undefined || ub > tMax) tMax = ub;
  }
  if (tMin === undefined || tMax === undefined) return undefined;
  const fronts = Number(last - first) + 1;
  const tSpan = Number(tMax - tMin) + 1;
  if (4 * fronts + fronts * tSpan > maxSyncBytes) return undefined;
  return { wFirst: Number(first), wLast: Number(last), tMin: Number(tMin), tSpan, deltas };
}

function regionSet(r: ParallelRegion): Set<BasicBlock> {
  return new Set(r.blocks);
}

/** Why region `r` cannot run on several threads, or undefined. */
function outlineProblem(r: ParallelRegion, slots: ReadonlySet<Instruction>): string | undefined {
  const inside = regionSet(r);
  const inRegion = (i: Instruction): boolean => i.parent !== undefined && inside.has(i.parent);
  for (const block of r.blocks) {
    for (const inst of block.instructions) {
      for (const u of inst.uses) {
        if (u.user.kind === 'instruction' && !inRegion(u.user)) return `a value computed in the loop (${inst.opcode}) is used after it`;
      }
      if (inst.opcode === 'call' && !isIntrinsicOrOmp(inst)) return 'the loop calls a function';
    }
  }
  for (const slot of slots) {
    const users = slot.uses.map((u) => u.user).filter((u): u is Instruction => u.kind === 'instruction');
    const written = users.some((u) => inRegion(u) && u.opcode === 'store' && u.operands[1] === slot);
    if (written && users.some((u) => !inRegion(u))) return `the loop writes the scalar slot ${slot.name ?? ''}, which is also used outside it (a value the loop leaves behind)`;
  }
  for (const block of r.blocks) {
    for (const s of successors(block)) if (!inside.has(s) && s !== r.done) return 'the loop has an exit other than its end';
  }
  return undefined;
}

function isIntrinsicOrOmp(inst: Instruction): boolean {
  const callee = calledValue(inst);
  // sched_yield: a point-synchronised band's waits (codegen/ast-to-ir.ts, generatePointSync).
  return callee?.kind === 'function' && (callee.name.startsWith('llvm.') || callee.name.startsWith('omp_') || callee.name === 'sched_yield');
}

/** Leaves `r` inline on one thread: the team is one thread, and the runtime calls go. */
function keepInline(r: PendingRegion): void {
  const dead: Value[] = [r.teamValues.threads, r.teamValues.thread, r.serial];
  replaceAllUsesWith(r.teamValues.threads, constInt(i64, 1));
  replaceAllUsesWith(r.teamValues.thread, constInt(i64, 0));
  eraseDead(dead);
}

/** Erases the instructions among `values` nothing uses, and then their operands nothing uses. */
function eraseDead(values: Value[]): void {
  const work = [...values];
  while (work.length > 0) {
    const v = work.pop()!;
    if (v.kind !== 'instruction' || !v.parent || v.uses.length > 0) continue;
    const ops = [...v.operands];
    eraseInstruction(v);
    work.push(...ops);
  }
}

/**
 * The attribute group of a function outlined from `fn`: nounwind, and `fn`'s string attributes
 * ("target-cpu", "target-features", "min-legal-vector-width", ...). Without the target's, the
 * backend and opt's vectorizers see the default x86-64 (SSE2, no FMA): the outlined micro-kernel
 * ran on <2 x double> with separate multiplies and adds, 2-3x slower than the caller's code.
 */
function outlinedAttributes(module: Module, fn: IrFunction): string {
  const strings = [...functionAttributes(fn)].filter((a) => a.startsWith('"'));
  return attributeGroup(module, ['nounwind', ...strings].join(' '));
}

/**
 * Moves region `r` into a new function `name(i8* %data)`, called from where it was through
 * GOMP_parallel, or directly when `r.serial` holds. Values from outside the region travel in a
 * struct at %data; scalar slots the region writes get a slot per thread.
 */
function outlineRegion(module: Module, fn: IrFunction, r: PendingRegion, slots: ReadonlySet<Instruction>, name: string, onFork: (b: IrBuilder) => void, buffers: ReadonlySet<Instruction>): void {
  const inside = regionSet(r);
  const inRegion = (i: Instruction): boolean => i.parent !== undefined && inside.has(i.parent);
  const inputs: Value[] = [];
  const seen = new Set<Value>();
  const privatized: Instruction[] = [];
  for (const block of r.blocks) {
    for (const inst of block.instructions) {
      for (const op of inst.operands) {
        const outside = (op.kind === 'instruction' && !inRegion(op)) || op.kind === 'argument';
        if (!outside || seen.has(op)) continue;
        seen.add(op);
        const written = op.kind === 'instruction' && slots.has(op) && (buffers.has(op) || op.uses.some((u) => u.user.kind === 'instruction' && inRegion(u.user) && u.user.opcode === 'store' && u.user.operands[1] === op));
        if (written) privatized.push(op as Instruction);
        else inputs.push(op);
      }
    }
  }
  const struct = literalStruct(inputs.map((v) => v.type));
  const sub = createFunction(module, name, functionType(voidType, [i8p]));
  sub.prefix = 'internal';
  sub.suffix = outlinedAttributes(module, fn);
  module.functions.push(sub);
  module.symbols.set(sub.name, sub);
  sub.args[0]!.name = 'data';

  // In fn: the struct (in the entry block, as any alloca), filled before the region, then the calls.
  const pre = r.blocks[0]!;
  const from = fn.blocks.find((b) => successors(b).includes(r.entry) && !inside.has(b))!;
  const data = new IrBuilder().positionAtStart(fn.blocks[0]!).alloca(struct, 'par.data');
  const fb = new IrBuilder().positionBefore(terminator(from)!);
  inputs.forEach((v, k) => fb.store(v, fb.gep(struct, data, [constInt(i32, 0), constInt(i32, k)])));
  const raw = fb.bitcast(data, i8p);
  eraseInstruction(terminator(from)!);
  const serialCall = createBlock(`${name}.serial`);
  const parallelCall = createBlock(`${name}.fork`);
  insertBlock(fn, serialCall, fn.blocks.indexOf(r.done));
  insertBlock(fn, parallelCall, fn.blocks.indexOf(r.done));
  fb.positionAtEnd(from).condBr(r.serial, serialCall, parallelCall);
  fb.positionAtEnd(serialCall).call(sub, [raw]);
  fb.br(r.done);
  const gomp = getOrInsertFunction(module, 'GOMP_parallel', functionType(voidType, [pointerTo(functionType(voidType, [i8p])), i8p, i32, i32]));
  fb.positionAtEnd(parallelCall);
  onFork(fb);
  fb.call(gomp, [sub, raw, constInt(i32, 0), constInt(i32, 0)]);
  fb.br(r.done);

  // In sub: read the inputs, make the private slots, then the region's blocks; its end returns.
  const entry = insertBlock(sub, createBlock('entry'));
  const sb = new IrBuilder(entry);
  const typed = sb.bitcast(sub.args[0]!, pointerTo(struct), 'par.in');
  const loaded = inputs.map((v, k) => sb.load(v.type, sb.gep(struct, typed, [constInt(i32, 0), constInt(i32, k)]), `${(v as { name?: string }).name ?? 'in'}.par`));
  const own = privatized.map((slot) => sb.alloca(slot.allocatedType!, `${slot.name ?? 'slot'}.thread`, slot.align));
  sb.br(pre);
  for (const block of r.blocks) {
    fn.blocks.splice(fn.blocks.indexOf(block), 1);
    block.parent = undefined;
    insertBlock(sub, block);
    for (const inst of block.instructions) inst.metadata = inst.metadata.filter((m) => m.name !== 'dbg');
  }
  const isMoved = (u: { user: { kind: string } }): boolean => u.user.kind === 'instruction' && inRegion(u.user as Instruction);
  inputs.forEach((v, k) => replaceUsesWithIf(v, loaded[k]!, isMoved));
  privatized.forEach((slot, k) => replaceUsesWithIf(slot, own[k]!, isMoved));
  const exit = insertBlock(sub, createBlock('exit'));
  new IrBuilder(exit).ret();
  for (const block of r.blocks) {
    const t = terminator(block)!;
    t.operands.forEach((op, k) => {
      if (op === r.done) setOperand(t, k, exit);
    });
  }
  // Debug intrinsics name the caller's variables: not in the outlined function.
  for (const block of r.blocks) {
    for (const inst of [...block.instructions]) {
      const callee = inst.opcode === 'call' ? calledValue(inst) : undefined;
      if (callee?.kind === 'function' && callee.name.startsWith('llvm.dbg.')) eraseInstruction(inst);
    }
  }
}

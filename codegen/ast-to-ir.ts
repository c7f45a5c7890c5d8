// isl AST → IR control flow (Polly's IslNodeBuilder): `for` nodes become top-tested loops
// with an i64 induction variable, `if` nodes branches, `user` nodes statement instances
// emitted by the caller. Loops are left for opt's loop-rotate, as Polly leaves them.
import type { AstExprTree, AstNodeTree } from 'isl-wasm';
import { InstFlag, IrBuilder, addIncoming, arrayOf, constInt, createBlock, insertBlockAfter, intType, type ArrayType, type BasicBlock, type Instruction, type Value } from '../ir';
import { AstExprEmitter } from './ast-expr';

const i64 = intType(64);
const i32 = intType(32);
const i8 = intType(8);
/** Spins on a column's flag (each with a pause) before its thread yields the core at every further one. */
const spinsBeforeYield = 1000;

/** A loop the generator made, handed to `onLoop` once its latch exists. */
export interface GeneratedLoop {
  readonly node: Extract<AstNodeTree, { kind: 'for' }>;
  readonly header: BasicBlock;
  /** The back edge `br label %header`: where `!llvm.loop` goes. */
  readonly latchBranch: Instruction;
  /** No `for` node below this one. */
  readonly innermost: boolean;
  /** `for` nodes around this one (0: outermost loop of the AST). */
  readonly depth: number;
}

export interface AstCodegenHooks {
  /** Parameters (and anything else that is not a loop iterator) as i64 values. */
  parameter(name: string): Value;
  /** Emits statement `name` for the iteration vector `args` (i64 values) at the builder's position. */
  statement(name: string, args: readonly Value[], b: IrBuilder, enclosing: readonly Extract<AstNodeTree, { kind: 'for' }>[]): void;
  /** Called for every generated loop after its body. */
  loop?(loop: GeneratedLoop): void;
  /** For a `for` node to run its iterations on several threads: how; undefined for a plain loop. */
  parallel?(node: ForNode): ParallelLoopHooks | undefined;
}

export class AstToIr {
  private readonly iterators = new Map<string, Value>();
  private readonly enclosing: Extract<AstNodeTree, { kind: 'for' }>[] = [];
  /** Blocks made, in order (for undoing a failed generation). */
  readonly blocks: BasicBlock[] = [];
  private last: BasicBlock;
  /** Inside a point-synchronised band (`generatePointSync`): the loop of columns and how they are claimed. */
  private claims: Claims | undefined;
  /** In a range loop's region (`ParallelLoopHooks.clipped`): its loops to clip and the thread's values [lo, hi]. */
  private clip: { loops: ReadonlySet<ForNode>; lo: Value; hi: Value } | undefined;

  constructor(readonly b: IrBuilder, readonly hooks: AstCodegenHooks, private readonly prefix: string) {
    this.last = b.insertBlock!;
  }

  /** A new block of the generated code, after the last one made (statements use it for conditional code). */
  newBlock(name: string): BasicBlock {
    const block = insertBlockAfter(this.last, createBlock(`${this.prefix}.${name}`));
    this.last = block;
    this.blocks.push(block);
    return block;
  }

  private exprs(): AstExprEmitter {
    return new AstExprEmitter(this.b, 64, (name) => this.iterators.get(name) ?? this.hooks.parameter(name));
  }

  /** Emits `node` from the builder's (open) block; leaves the builder at the (open) block where control continues. */
  generate(node: AstNodeTree): void {
    const b = this.b;
    switch (node.kind) {
      case 'block':
        for (const child of node.children) this.generate(child);
        return;
      case 'mark':
        this.generate(node.node);
        return;
      case 'user': {
        const call = node.expr;
        if (call.kind !== 'op' || call.op !== 'call' || call.args[0]?.kind !== 'id') throw new Error('a user node that is not a statement call');
        const e = this.exprs();
        const args = call.args.slice(1).map((a) => e.value(a));
        this.hooks.statement(call.args[0].name, args, b, this.enclosing);
        return;
      }
      case 'if': {
        const cond = this.exprs().cond(node.cond);
        const thenBlock = this.newBlock('then');
        const elseBlock = node.else ? this.newBlock('else') : undefined;
        const merge = this.newBlock('merge');
        b.condBr(cond, thenBlock, elseBlock ?? merge);
        b.positionAtEnd(thenBlock);
        this.generate(node.then);
        b.br(merge);
        if (node.else && elseBlock) {
          b.positionAtEnd(elseBlock);
          this.generate(node.else);
          b.br(merge);
        }
        b.positionAtEnd(merge);
        return;
      }
      case 'for': {
        if (node.iterator.kind !== 'id') throw new Error('a loop iterator that is not an identifier');
        if (this.claims?.node === node) {
          this.generateClaims(node, this.claims);
          return;
        }
        const parallel = this.hooks.parallel?.(node);
        if (parallel) {
          this.generateParallel(node, parallel);
          return;
        }
        if (this.clip?.loops.has(node)) {
          // A loop over a range loop's values: only the thread's [lo, hi] of them, bounds computed before it.
          const { lo, hi } = this.clip;
          const { lb, ub } = this.loopRange(node, this.exprs());
          const to = b.select(b.icmp('slt', ub, hi), ub, hi, 'range.ub');
          this.emitLoop(node, b.select(b.icmp('sgt', lb, lo), lb, lo, 'range.lb'), (iv) => b.icmp('sle', iv, to));
          return;
        }
        const inner = onlyLoop(node.body);
        const columns = inner && this.hooks.parallel?.(inner);
        const sync = columns && columns.pointSync?.(node, inner, this.enclosing);
        if (sync) {
          this.generatePointSync(node, inner, columns, sync);
          return;
        }
        this.emitLoop(node, this.exprs().value(node.init), (iv) => {
          this.iterators.set(iterName(node), iv);
          return this.exprs().cond(node.cond);
        });
        return;
      }
    }
  }

  /**
   * The loop of `node` from `init` while `cond(iv)` holds (evaluated in the header, with the
   * iterator bound to `iv`, or to `iterator(iv)` when given: a counter whose iterations run the
   * iterator's values in another order), from the builder's block; leaves the builder at the loop's exit.
   */
  private emitLoop(
    node: ForNode, init: Value, cond: (iv: Instruction) => Value, step?: Value, iterator?: (iv: Instruction) => Value,
    around?: { before(it: Value): void; after(it: Value): void },
  ): { header: BasicBlock; iterator: Value } {
    const b = this.b;
    const name = iterName(node);
    const pre = b.insertBlock!;
    const header = this.newBlock('header');
    const body = this.newBlock('body');
    b.br(header);
    b.positionAtEnd(header);
    const iv = b.phi(init.type, iterator ? `${name}.count` : name, [[init, pre]]);
    const value = iterator ? iterator(iv) : iv;
    this.iterators.set(name, value);
    const exit = this.newBlock('exit');
    b.condBr(cond(iv), body, exit);
    b.positionAtEnd(body);
    this.enclosing.push(node);
    around?.before(value);
    this.generate(node.body);
    around?.after(value);
    this.enclosing.pop();
    // nsw, as clang gives its own counters: without it SCEV cannot count the iterations of a
    // loop that exits on `c <= bound` (it might wrap), and LLVM's loop vectorizer refuses
    // the loop (syrk's `j <= i`: the original vectorized, the fast path not). The counter
    // stays within the iteration domain plus one step, which the AST's i64 arithmetic
    // already assumes (the check bounds the parameters).
    const next = b.add(iv, step ?? this.exprs().value(node.inc), `${name}.next`, InstFlag.NoSignedWrap);
    const latch = b.insertBlock!;
    const latchBranch = b.br(header);
    addIncoming(iv, next, latch);
    this.iterators.delete(name);
    b.positionAtEnd(exit);
    this.hooks.loop?.({ node, header, latchBranch, innermost: !containsFor(node.body), depth: this.enclosing.length });
    return { header, iterator: value };
  }

  /**
   * A loop whose iterations may run on several threads (codegen/parallel-loop.ts): its trip
   * count n from its bounds, then a region that runs the iterations [k0, k1) of the static
   * block its thread gets, ending in a block of its own the region branches to. The hook
   * outlines the region once the fast path is complete.
   */
  private generateParallel(node: ForNode, p: ParallelLoopHooks): void {
    const b = this.b;
    const e = this.exprs();
    const { lb, ub } = this.loopRange(node, e);
    const inc = e.value(node.inc);
    // n = ub < lb ? 0 : (ub - lb) / inc + 1
    const span = b.binary('sdiv', b.sub(ub, lb), inc);
    const n = b.select(b.icmp('slt', ub, lb), constInt(i64, 0), b.add(span, constInt(i64, 1)), 'par.n');
    const serial = p.serial(b, n, this.enclosing);
    const last = b.add(lb, b.mul(b.sub(n, constInt(i64, 1)), inc), 'par.last.iv');
    const share = p.clipped ? 'block' : shareOf(node, this.enclosing, p.dynamic);
    // The dynamic share's next unclaimed iteration: one counter the threads share, 0 at each start.
    const next = share === 'dynamic' ? new IrBuilder().positionAtStart(b.insertBlock!.parent!.blocks[0]!).alloca(i64, 'par.next') : undefined;
    if (next) b.store(constInt(i64, 0), next);
    const entry = this.newBlock('par.entry');
    const first = this.blocks.length - 1;
    b.br(entry);
    b.positionAtEnd(entry);
    const { threads, thread } = p.team(b, serial);
    let loop: { header: BasicBlock; iterator: Value };
    if (next) {
      // Dynamic schedule: each thread claims the next iteration (an atomic add on the shared
      // counter) until none is left, so a thread that ran small tiles takes more of them. The
      // header binds the iterator (lb + q inc) before it tests q < n.
      let at: Value | undefined;
      loop = this.emitLoop(node, constInt(i64, 0), () => b.icmp('slt', at!, n), constInt(i64, 1), () => {
        at = b.atomicAdd(next, constInt(i64, 1), 'par.q');
        return b.add(lb, b.mul(at, inc), 'par.iv');
      });
    } else if (share === 'zigzag') {
      // Static zigzag schedule: the iterations dealt out in rounds of 2T, forwards then
      // backwards, so thread t runs the iterations q = t, 2T - 1 - t, 2T + t, 4T - 1 - t, ...
      // (increasing). Where the loops inside have bounds that move with this loop's iterator
      // (syrk's and covariance's j <= i, tiles of a triangle, a wavefront's skewed tiles),
      // contiguous blocks leave one thread most of the work, and a cyclic share (t, t + T, ...)
      // gives thread 0 the larger of every pair: over covariance's 10 row tiles of a triangle
      // (work 1136, 1008, ..., 112, 9) 1.11x the mean, against 1.02x here.
      const round = b.mul(threads, constInt(i64, 2), 'par.round');
      const back = b.sub(b.sub(round, constInt(i64, 1)), thread, 'par.back');
      // q of the counter m: 2T (m / 2) + (m odd ? 2T - 1 - t : t)
      const q = (m: Value): Value => b.add(b.mul(b.binary('sdiv', m, constInt(i64, 2)), round), b.select(b.icmp('ne', b.and(m, constInt(i64, 1)), constInt(i64, 0)), back, thread), 'par.q');
      // The header binds the iterator (lb + q inc) before it tests q < n.
      let at: Value | undefined;
      loop = this.emitLoop(node, constInt(i64, 0), () => b.icmp('slt', at!, n), constInt(i64, 1), (m) => {
        at = q(m);
        return b.add(lb, b.mul(at, inc), 'par.iv');
      });
    } else {
      // Static block schedule: thread t runs the iterations [t * chunk, min(n, (t + 1) * chunk)),
      // a unit stride the vectorizer needs in an innermost loop. Over a rectangle below, blocks
      // are as even as a cyclic share, and neighbouring iterations stay on one thread: gemm's jr
      // micro-panels of C (24 doubles) share a cache line on every row not aligned to 64 bytes
      // (C's 8800-byte rows: every other row), which a cyclic share has two threads write at once.
      const even = b.binary('sdiv', b.add(n, b.sub(threads, constInt(i64, 1))), threads, { name: 'par.chunk' });
      const chunk = p.clipped ? rangeChunk(b, even) : even;
      const k0 = b.mul(thread, chunk);
      const k1 = b.select(b.icmp('slt', n, b.add(k0, chunk)), n, b.add(k0, chunk));
      const from = b.add(lb, b.mul(k0, inc), 'par.lb');
      const to = b.add(lb, b.mul(b.sub(k1, constInt(i64, 1)), inc), 'par.ub');
      if (p.clipped) loop = this.emitRange(node, p.clipped, from, to);
      else loop = this.emitLoop(node, from, (iv) => b.icmp('sle', iv, to));
    }
    const done = this.newBlock('par.done');
    b.br(done);
    const region = this.blocks.slice(first, this.blocks.length - 1);
    b.positionAtEnd(done);
    p.region({ node, entry, blocks: region, done, serial, share, ...loop, last });
  }

  /**
   * The band of wavefronts `outer` (w, sequential) whose only child is the loop of their columns
   * `inner` (t, on the threads), run by one team with point-to-point synchronisation instead of
   * a team (and a join) per wavefront:
   *
   *   one team:  for w (each thread walks every wavefront)
   *                while (q = claims[w]++) < n(w):          claimed in wavefront order
   *                  t = lb(w) + q
   *                  for each offset (dw, dt) the dependences give (`sync.deltas`): where the
   *                    column (w - dw, t - dt) is one of the band's, spin (pause, later yield)
   *                    until its flag is set (atomic acquire load)
   *                  the column (w, t)
   *                  flag[w, t] = 1                        (atomic release store)
   *
   * Sound: every dependence between two columns has its offset in `sync.deltas` (isl,
   * transform/wavefront.ts), so a column starts after every column it reads from or writes
   * after; the release/acquire pair orders their memory. No deadlock: a thread claims in
   * wavefront w only once w - 1's claims are exhausted, so when any column of w is claimed every
   * column of every earlier wavefront has been claimed; the unfinished claimed column of the
   * least wavefront waits only for columns of earlier ones (each offset has dw >= 1), which are
   * all done, so it runs to its end, and by induction every claimed column does. A waiting
   * thread holds nothing another needs. One thread (the team of one) runs the columns in
   * wavefront order, each wait already satisfied. The claims (4 bytes a wavefront) and flags (a
   * byte a column) live in the caller's frame, zeroed before each run.
   */
  private generatePointSync(outer: ForNode, inner: ForNode, p: ParallelLoopHooks, sync: PointSync): void {
    const b = this.b;
    const fronts = sync.wLast - sync.wFirst + 1;
    // One claim counter per wavefront, one flag byte per column of the box.
    const at = new IrBuilder().positionAtStart(b.insertBlock!.parent!.blocks[0]!);
    const claims = { type: arrayOf(i32, fronts), cell: i32 };
    const flags = { type: arrayOf(i8, fronts * sync.tSpan), cell: i8 };
    const claimsAt = at.alloca(claims.type, 'sync.claims', 64);
    const flagsAt = at.alloca(flags.type, 'sync.flags', 64);
    // Zero them: the run's columns are all still to do.
    this.zeroArray(claimsAt, claims.type, claims.cell, fronts);
    this.zeroArray(flagsAt, flags.type, flags.cell, fronts * sync.tSpan);
    const serial = p.serial(b, constInt(i64, fronts), []);
    const entry = this.newBlock('par.entry');
    const first = this.blocks.length - 1;
    b.br(entry);
    b.positionAtEnd(entry);
    p.team(b, serial);
    this.claims = { node: inner, outer: iterName(outer), sync, claims: claimsAt, claimsType: claims.type, flags: flagsAt, flagsType: flags.type, hooks: p };
    const loop = this.emitLoop(outer, this.exprs().value(outer.init), (iv) => {
      this.iterators.set(iterName(outer), iv);
      return this.exprs().cond(outer.cond);
    });
    this.claims = undefined;
    const done = this.newBlock('par.done');
    b.br(done);
    const region = this.blocks.slice(first, this.blocks.length - 1);
    b.positionAtEnd(done);
    p.region({ node: inner, entry, blocks: region, done, serial, share: 'dynamic', ...loop, last: constInt(i64, sync.wLast), sync });
  }

  /** The columns of one wavefront inside `generatePointSync`'s team: claimed, waited for, run, published. */
  private generateClaims(inner: ForNode, c: Claims): void {
    const b = this.b;
    const e = this.exprs();
    const w = this.iterators.get(c.outer)!;
    const { lb, ub } = this.loopRange(inner, e);
    const n = b.select(b.icmp('slt', ub, lb), constInt(i64, 0), b.add(b.sub(ub, lb), constInt(i64, 1)), 'sync.n');
    const front = b.sub(w, constInt(i64, c.sync.wFirst), 'sync.front');
    const counter = b.gep(c.claimsType, c.claims, [constInt(i64, 0), front], 'sync.claim');
    const flag = (w1: Value, t1: Value): Value => {
      const cell = b.add(b.mul(b.sub(w1, constInt(i64, c.sync.wFirst)), constInt(i64, c.sync.tSpan)), b.sub(t1, constInt(i64, c.sync.tMin)));
      return b.gep(c.flagsType, c.flags, [constInt(i64, 0), cell], 'sync.flag');
    };
    let at: Value | undefined;
    this.emitLoop(inner, constInt(i64, 0), () => b.icmp('slt', at!, n), constInt(i64, 1), () => {
      at = b.sext(b.atomicAdd(counter, constInt(i32, 1), 'sync.q'), i64);
      return b.add(lb, at, 'sync.t');
    }, {
      before: (t) => {
        for (const [dw, dt] of c.sync.deltas) {
          const w1 = b.sub(w, constInt(i64, dw), 'sync.w.dep');
          const t1 = b.sub(t, constInt(i64, dt), 'sync.t.dep');
          // The column (w1, t1) is the band's: w1 one of its wavefronts, t1 in that one's range.
          const range = this.loopRange(inner, new AstExprEmitter(b, 64, (name) => (name === c.outer ? w1 : this.iterators.get(name) ?? this.hooks.parameter(name))));
          const inFront = b.and(b.icmp('sge', t1, range.lb), b.icmp('sle', t1, range.ub));
          const exists = b.and(b.icmp('sge', w1, constInt(i64, c.sync.wFirst)), inFront, 'sync.dep');
          const wait = this.newBlock('sync.wait');
          const spin = this.newBlock('sync.spin');
          const relax = this.newBlock('sync.relax');
          const yieldCore = this.newBlock('sync.yield');
          const ready = this.newBlock('sync.ready');
          b.condBr(exists, wait, ready);
          b.positionAtEnd(wait);
          const ptr = flag(w1, t1);
          b.br(spin);
          b.positionAtEnd(spin);
          const spins = b.phi(i32, 'sync.spins', [[constInt(i32, 0), wait]]);
          const done = b.atomicLoad(i8, ptr, 'acquire', 1, 'sync.done');
          b.condBr(b.icmp('ne', done, constInt(i8, 0)), ready, relax);
          b.positionAtEnd(relax);
          c.hooks.pause(b);
          const next = b.add(spins, constInt(i32, 1), 'sync.spins.next', InstFlag.NoSignedWrap);
          addIncoming(spins, next, relax);
          b.condBr(b.icmp('sgt', next, constInt(i32, spinsBeforeYield)), yieldCore, spin);
          b.positionAtEnd(yieldCore);
          c.hooks.yield(b);
          addIncoming(spins, next, yieldCore);
          b.br(spin);
          b.positionAtEnd(ready);
        }
      },
      after: (t) => {
        b.atomicStore(constInt(i8, 1), flag(w, t), 'release', 1);
      },
    });
  }

  /** Stores 0 to the `count` cells of `cell` type of the array `at` (`type`), in a loop from the builder's block. */
  private zeroArray(at: Value, type: ArrayType, cell: typeof i32 | typeof i8, count: number): void {
    const b = this.b;
    const pre = b.insertBlock!;
    const body = this.newBlock('sync.zero');
    const after = this.newBlock('sync.zeroed');
    b.br(body);
    b.positionAtEnd(body);
    const k = b.phi(i64, 'sync.k', [[constInt(i64, 0), pre]]);
    b.store(constInt(cell, 0), b.gep(type, at, [constInt(i64, 0), k]));
    const next = b.add(k, constInt(i64, 1), 'sync.k.next', InstFlag.NoSignedWrap);
    addIncoming(k, next, body);
    b.condBr(b.icmp('slt', next, constInt(i64, count)), body, after);
    b.positionAtEnd(after);
  }

  /** The first value of `node`'s counter and its bound as `<=` (`parallelBound`'s form), as `e` evaluates them. */
  private loopRange(node: ForNode, e: AstExprEmitter): { lb: Value; ub: Value } {
    const { upper, strict } = parallelBound(node)!;
    const lb = e.value(node.init);
    const bound = e.value(upper);
    return { lb, ub: strict ? this.b.sub(bound, constInt(i64, 1)) : bound };
  }

  /**
   * A range loop's body once, for the thread's values [from, to] (none when empty): the loops
   * `clipped` inside it run only those values (codegen/column-ranges.ts). The builder ends at the
   * block after it.
   */
  private emitRange(node: ForNode, clipped: ReadonlySet<ForNode>, from: Value, to: Value): { header: BasicBlock; iterator: Value } {
    const b = this.b;
    const body = this.newBlock('range');
    const end = this.newBlock('range.end');
    b.condBr(b.icmp('sle', from, to), body, end);
    b.positionAtEnd(body);
    const outer = this.clip;
    this.clip = { loops: clipped, lo: from, hi: to };
    this.iterators.set(iterName(node), from);
    this.generate(node.body);
    this.iterators.delete(iterName(node));
    this.clip = outer;
    b.br(end);
    b.positionAtEnd(end);
    return { header: body, iterator: from };
  }
}

/** A point-synchronised band as `generateClaims` runs it. */
interface Claims {
  readonly node: ForNode;
  /** The wavefront loop's iterator. */
  readonly outer: string;
  readonly sync: PointSync;
  /** [fronts x i32] claim counters and [fronts x tSpan x i8] flags, in the caller's frame. */
  readonly claims: Value;
  readonly claimsType: ArrayType;
  readonly flags: Value;
  readonly flagsType: ArrayType;
  readonly hooks: ParallelLoopHooks;
}

/**
 * What point-to-point synchronisation of a band of wavefronts needs (`generatePointSync`), known
 * at compile time: the wavefronts wFirst..wLast (step 1), the columns' least value and span over
 * all wavefronts (the flags' box), and the offsets (dw >= 1, dt) of the columns a column waits for.
 */
export interface PointSync {
  readonly wFirst: number;
  readonly wLast: number;
  readonly tMin: number;
  readonly tSpan: number;
  readonly deltas: readonly (readonly [number, number])[];
}

/** The only loop `node` holds, through marks and blocks of one child; undefined for anything else. */
function onlyLoop(node: AstNodeTree): ForNode | undefined {
  if (node.kind === 'for') return node;
  if (node.kind === 'mark') return onlyLoop(node.node);
  if (node.kind === 'block' && node.children.length === 1) return onlyLoop(node.children[0]!);
  return undefined;
}

type ForNode = Extract<AstNodeTree, { kind: 'for' }>;

/**
 * A range loop's values a thread, from the even share `even`: rounded up to a multiple of
 * `rangeGranule` from two granules on, so that only the last thread's clipped loops end in a
 * partial vector iteration. Each row of a clipped loop is a vector loop (4 doubles x 4
 * interleaved on AVX2) and a scalar remainder: split evenly, every thread ran a remainder per
 * row (PolyBench gramschmidt at M = 500, N = 600: two threads 12% more instructions than one).
 * The columns rounding adds run in vector iterations, cheaper than the remainders it saves
 * (gramschmidt LARGE, callgrind, busiest of two threads: rounding from 10 granules 831.8M, from 2
 * 812.8M; granules of 32 from 2, 822.3M).
 */
function rangeChunk(b: IrBuilder, even: Value): Value {
  const g = constInt(i64, rangeGranule);
  const rounded = b.mul(b.binary('sdiv', b.add(even, constInt(i64, rangeGranule - 1)), g), g);
  return b.select(b.icmp('sge', even, constInt(i64, 2 * rangeGranule)), rounded, even, 'range.chunk');
}

const rangeGranule = 16;

function iterName(node: ForNode): string {
  if (node.iterator.kind !== 'id') throw new Error('a loop iterator that is not an identifier');
  return node.iterator.name;
}

/**
 * `node`'s upper bound when its condition is `iterator <= e` or `iterator < e` with `e` free of
 * the iterator and the step a positive constant (what isl's AST gives a loop); else undefined.
 */
export function parallelBound(node: ForNode): { upper: AstExprTree; strict: boolean } | undefined {
  const c = node.cond;
  const it = node.iterator.kind === 'id' ? node.iterator.name : undefined;
  if (it === undefined || c.kind !== 'op' || (c.op !== 'le' && c.op !== 'lt')) return undefined;
  const [lhs, rhs] = c.args;
  if (lhs?.kind !== 'id' || lhs.name !== it || rhs === undefined || mentions(rhs, it)) return undefined;
  if (node.inc.kind !== 'int' || BigInt(node.inc.value) <= 0n) return undefined;
  return { upper: rhs, strict: c.op === 'lt' };
}

/** Whether `e` uses the identifier `name`. */
export function mentions(e: AstExprTree, name: string): boolean {
  if (e.kind === 'id') return e.name === name;
  if (e.kind === 'op') return e.args.some((a) => mentions(a, name));
  return false;
}

/** A parallel loop's region, generated inline and to be outlined. */
export interface ParallelRegion {
  readonly node: ForNode;
  /** The region's first block (its only entry) and all its blocks, in order. */
  readonly entry: BasicBlock;
  readonly blocks: readonly BasicBlock[];
  /** Where the region continues: its only exit, outside it. */
  readonly done: BasicBlock;
  /** i1, computed before the region: run it on the calling thread alone. */
  readonly serial: Value;
  /** How the iterations are shared out (`shareOf`). */
  readonly share: Share;
  /** The loop's header (it binds the iterator), the iterator's value there, and its value in the last iteration (computed before the region). */
  readonly header: BasicBlock;
  readonly iterator: Value;
  readonly last: Value;
  /** A band of wavefronts run by one team, its columns synchronised point to point (`generatePointSync`); the region's loop is then the wavefronts'. */
  readonly sync?: PointSync;
}

/** What the caller decides for a loop it wants run in parallel (`AstCodegenHooks.parallel`). */
export interface ParallelLoopHooks {
  /** Whether a loop whose unequal iterations change from run to run may claim them dynamically (`shareOf`). */
  readonly dynamic: boolean;
  /**
   * A range loop (codegen/column-ranges.ts): each thread runs the body once for its static block
   * of the iterations, these loops inside clipped to it.
   */
  readonly clipped?: ReadonlySet<ForNode>;
  /** i1 at the builder's position (before the region): run the `n` iterations serially. */
  serial(b: IrBuilder, n: Value, enclosing: readonly ForNode[]): Value;
  /** The thread count and this thread's number (i64) at the region's start. */
  team(b: IrBuilder, serial: Value): { threads: Value; thread: Value };
  /** The region, complete (its loop and what it runs). */
  region(r: ParallelRegion): void;
  /**
   * For this loop of columns as the only child of `outer` (a band of wavefronts): what one team
   * for the whole band needs (`generatePointSync`), or undefined for a team per run of this loop.
   */
  pointSync?(outer: ForNode, inner: ForNode, enclosing: readonly ForNode[]): PointSync | undefined;
  /** Emits one spin's pause (x86 `pause`, or nothing). */
  pause(b: IrBuilder): void;
  /** Emits a call that gives the core to another thread (`sched_yield`). */
  yield(b: IrBuilder): void;
}

/** Calls `f` on every `for` node of `node` in pre-order; descends into one's body only when `f` returns true. */
export function visitLoops(node: AstNodeTree, f: (loop: ForNode) => boolean): void {
  switch (node.kind) {
    case 'for':
      if (f(node)) visitLoops(node.body, f);
      return;
    case 'block':
      node.children.forEach((c) => visitLoops(c, f));
      return;
    case 'if':
      visitLoops(node.then, f);
      if (node.else) visitLoops(node.else, f);
      return;
    case 'mark':
      visitLoops(node.node, f);
      return;
    case 'user':
      return;
  }
}

/**
 * Calls `f` on every mark node of `node` named `mark`, in pre-order, without descending into
 * one: what lies below a mark is `f`'s to walk.
 */
export function visitMarks(node: AstNodeTree, mark: string, f: (marked: Extract<AstNodeTree, { kind: 'mark' }>) => void): void {
  switch (node.kind) {
    case 'mark':
      if (node.mark === mark) f(node);
      else visitMarks(node.node, mark, f);
      return;
    case 'for':
      visitMarks(node.body, mark, f);
      return;
    case 'block':
      node.children.forEach((c) => visitMarks(c, mark, f));
      return;
    case 'if':
      visitMarks(node.then, mark, f);
      if (node.else) visitMarks(node.else, mark, f);
      return;
    case 'user':
      return;
  }
}

/**
 * How a parallel loop's iterations are shared out: contiguous blocks, a static zigzag (thread t
 * of T: t, 2T - 1 - t, 2T + t, ...), or dynamically, one iteration claimed at a time.
 */
export type Share = 'block' | 'zigzag' | 'dynamic';

/**
 * The share of parallel loop `node` inside `enclosing`: blocks unless loops inside it have bounds
 * that use its iterator (its iterations' work differs); then dynamic where its own bounds use an
 * enclosing loop's iterator, else a zigzag. Such a loop runs a different set of unequal iterations
 * each time: a wavefront of time tiles (transform/wavefront.ts) holds 1 to 8-16 skewed tiles,
 * clipped at the space edges, each a column of the inner tile loops. A static share leaves one
 * thread the odd tile or the larger ones; claimed one at a time, the thread that ran smaller
 * tiles takes the next (PolyBench LARGE, per-wavefront counts of statement instances: the
 * busiest thread bounds two threads at 1.82x, 1.83x and 1.80x one for jacobi-2d, heat-3d and
 * fdtd-2d in a zigzag, 1.89x, 1.85x and 1.88x claimed dynamically). The matmul path's row tiles
 * of a triangle inside a block of rows (syrk's j <= i, below ic) are such a loop too. A loop
 * whose iterations are the same each run (covariance's row tiles of its triangle, outside every
 * other loop) keeps the zigzag, which needs no shared counter. Each claim is one atomic add on a
 * line the threads share: small against an iteration that runs loops.
 */
export function shareOf(node: ForNode, enclosing: readonly ForNode[], dynamic = true): Share {
  if (!containsFor(node.body) || !shapedBy(node.body, iterName(node))) return 'block';
  const front = enclosing.some((l) => l.iterator.kind === 'id' && (mentions(node.init, l.iterator.name) || mentions(node.cond, l.iterator.name)));
  return front && dynamic ? 'dynamic' : 'zigzag';
}

/** Whether a loop or condition inside `node` has a bound or test that uses the iterator `name`. */
export function shapedBy(node: AstNodeTree, name: string): boolean {
  switch (node.kind) {
    case 'for':
      return mentions(node.init, name) || mentions(node.cond, name) || shapedBy(node.body, name);
    case 'block':
      return node.children.some((c) => shapedBy(c, name));
    case 'if':
      return mentions(node.cond, name) || shapedBy(node.then, name) || (node.else !== undefined && shapedBy(node.else, name));
    case 'mark':
      return shapedBy(node.node, name);
    case 'user':
      return false;
  }
}

export function containsFor(node: AstNodeTree): boolean {
  switch (node.kind) {
    case 'for':
      return true;
    case 'block':
      return node.children.some(containsFor);
    case 'if':
      return containsFor(node.then) || (node.else !== undefined && containsFor(node.else));
    case 'mark':
      return containsFor(node.node);
    case 'user':
      return false;
  }
}

/** The statement calls below `node`: name and argument expressions. */
export function statementCalls(node: AstNodeTree, out: { name: string; args: readonly AstExprTree[] }[] = []): { name: string; args: readonly AstExprTree[] }[] {
  switch (node.kind) {
    case 'for':
      statementCalls(node.body, out);
      break;
    case 'block':
      node.children.forEach((c) => statementCalls(c, out));
      break;
    case 'if':
      statementCalls(node.then, out);
      if (node.else) statementCalls(node.else, out);
      break;
    case 'mark':
      statementCalls(node.node, out);
      break;
    case 'user':
      if (node.expr.kind === 'op' && node.expr.args[0]?.kind === 'id') out.push({ name: node.expr.args[0].name, args: node.expr.args.slice(1) });
      break;
  }
  return out;
}

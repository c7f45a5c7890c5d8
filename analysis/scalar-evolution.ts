// Scalar evolution on our IR (LLVM's ScalarEvolution, the parts SCoP detection
// needs): closed forms of integer and pointer values, backedge-taken counts of
// rotated loops, and the facts that dominating branch conditions give.
//
// What -O3 IR looks like and how it is read here:
// - rotated loops behind guards: the exit test sits in the latch; the guard's
//   condition is a fact at the preheader, used to drop `smax(0, …)`;
// - widened IVs: i64 phis `{0,+,1}<nuw><nsw>`; `sext`/`zext` of recurrences with
//   the matching no-wrap flag are pushed inside;
// - runtime-unrolled loops: `or %iv, 1` on an IV with zero low bits is an add;
//   `and %n, -4` is `4 * (%n /u 4)`, `and %n, 3` is `%n - 4 * (%n /u 4)`; the phi
//   that merges the unrolled loop's exit value with its guard's skip edge is the
//   exit value when the trip count is 0 on the skip edge;
// - LCSSA phis are their operand evaluated at the loop's exit (getSCEVAtScope);
// - pointers are a base (an unknown) plus a byte offset: GEPs scale indices by
//   element sizes (x86-64 data layout).
import {
  type BasicBlock, type ConstantExpr, type Instruction, type IrFunction, type Type, type Value,
  InstFlag, successors, terminator,
} from '../ir';
import type { AnalysisKey } from './analysis-manager';
import { type DomTree, dominatorTreeAnalysis } from './dominators';
import { type Loop, type LoopInfo, loopAnalysis } from './loops';
import { allocSize, structLayout } from './data-layout';
import { findErrorBlocks } from './error-blocks';
import { localNames, valueName } from './value-names';
import { type Facts, type Range, fullRange, rangeOf, withFact, isKnownNonNegative } from './ranges';
import {
  type Scev, type ScevAddRec, type ScevUnknown, ScevContext, ScevKind, NoWrap, isZero, constantValue,
} from './scev';
import type { IntPredicate, ScopCondition, RejectionCause } from './scop-detection-types';

export { allocSize, structLayout } from './data-layout';

const invertPredicate: Record<IntPredicate, IntPredicate> = {
  eq: 'ne', ne: 'eq', slt: 'sge', sge: 'slt', sle: 'sgt', sgt: 'sle', ult: 'uge', uge: 'ult', ule: 'ugt', ugt: 'ule',
};
const swapPredicate: Record<IntPredicate, IntPredicate> = {
  eq: 'eq', ne: 'ne', slt: 'sgt', sgt: 'slt', sle: 'sge', sge: 'sle', ult: 'ugt', ugt: 'ult', ule: 'uge', uge: 'ule',
};
export const toSigned: Record<IntPredicate, IntPredicate> = {
  eq: 'eq', ne: 'ne', slt: 'slt', sgt: 'sgt', sle: 'sle', sge: 'sge', ult: 'slt', ugt: 'sgt', ule: 'sle', uge: 'sge',
};
export function isUnsignedPredicate(p: IntPredicate): boolean {
  return p === 'ult' || p === 'ule' || p === 'ugt' || p === 'uge';
}
export { invertPredicate, swapPredicate };

/** Why a loop's trip count is not known, classified for SCoP detection. */
export interface ExitFailure {
  readonly cause: RejectionCause;
  readonly detail: string;
}

export interface LoopExit {
  /** Times the back edge runs per entry of the loop (a count, so >= 0). */
  readonly backedgeTakenCount: Scev;
  /** The loop continues after iteration i while this holds (lhs is an add recurrence of the loop). */
  readonly continueCondition: ScopCondition;
  /** The latch's comparison was unsigned and read as signed because both sides are non-negative. */
  readonly unsignedAsSigned: boolean;
}

export class ScalarEvolution {
  readonly ctx: ScevContext;
  /** Printed names of the function's local values (`%5`, `%i`). */
  readonly names: Map<Value, string>;
  private static readonly MAX_DEPTH = 400;
  private depth = 0;
  private readonly cache = new Map<Value, Scev>();
  private readonly cacheLog: Value[] = [];
  /** Phis outside every loop whose closed form is being computed (getScev). */
  private readonly phisInProgress = new Set<Value>();
  private readonly exits = new Map<Loop, LoopExit | ExitFailure>();
  private errorBlockSet: Set<BasicBlock> | undefined;

  private errorBlocks(): Set<BasicBlock> {
    return (this.errorBlockSet ??= findErrorBlocks(this.fn));
  }
  private readonly blockFacts = new Map<BasicBlock, Facts>();
  private readonly factsInProgress = new Set<BasicBlock>();
  /** Loops whose trip count `recurrenceRange` is asking for (an exit test may use the value asked about). */
  private readonly exitsInProgress = new Set<Loop>();
  private readonly rank = new Map<Value, number>();
  private readonly pointerBases = new Map<Scev, { base: ScevUnknown; offset: Scev } | null>();

  constructor(readonly fn: IrFunction, readonly loops: LoopInfo, readonly dt: DomTree) {
    this.names = localNames(fn);
    this.ctx = new ScevContext({
      loopOf: (v) => {
        const value = v as Value;
        return value.kind === 'instruction' && value.parent ? loops.loopFor(value.parent) : undefined;
      },
    });
    let n = 0;
    for (const a of fn.args) this.rank.set(a, n++);
    for (const b of fn.blocks) for (const i of b.instructions) this.rank.set(i, n++);
  }

  nameOf(v: Value): string {
    return valueName(v, this.names);
  }

  /** True for values whose closed form we compute (integers and pointers). */
  isScevable(v: Value): boolean {
    return v.type.kind === 'int' || v.type.kind === 'ptr';
  }

  private bitsOf(v: Value): number {
    return v.type.kind === 'int' ? v.type.bits : 64;
  }

  unknownFor(v: Value): ScevUnknown {
    const rank = this.rank.get(v) ?? (v.kind === 'global' || v.kind === 'function' ? -1 : 1 << 30);
    return this.ctx.unknown(v, this.nameOf(v), this.bitsOf(v), rank);
  }

  /** The closed form of an integer or pointer value (pointers: base unknown + byte offset). */
  getScev(v: Value): Scev {
    const cached = this.cache.get(v);
    if (cached) return cached;
    // Long chains of values (bzip2's decompress.c at -O2) overflowed the JS stack. Past this
    // depth a value is an unknown, as LLVM bounds its own recursion (MaxArithDepth): that costs
    // precision only, since an unknown defined inside a region is never taken for a parameter.
    // It is not cached, so a query that starts closer to the value still computes it.
    if (this.depth >= ScalarEvolution.MAX_DEPTH) return this.unknownFor(v);
    // A phi outside every loop asked again while its own closed form is being computed sits on
    // a cycle of irreducible control flow (a reducible cycle is a loop, whose header phi has a
    // placeholder in the cache by then): it has no closed form, so it is an unknown at once, not
    // cached, as the depth limit would make it after going round the cycle up to MAX_DEPTH
    // times, recomputing every phi of the cycle on each round (bzip2's BZ2_decompress, a state
    // machine whose `case` labels jump into its loops).
    const cyclePhi = v.kind === 'instruction' && v.opcode === 'phi' && v.parent !== undefined && this.loops.loopFor(v.parent) === undefined;
    if (cyclePhi && this.phisInProgress.has(v)) return this.unknownFor(v);
    if (cyclePhi) this.phisInProgress.add(v);
    this.depth++;
    let s: Scev;
    try {
      s = this.compute(v);
    } finally {
      this.depth--;
      if (cyclePhi) this.phisInProgress.delete(v);
    }
    this.cache.set(v, s);
    this.cacheLog.push(v);
    return s;
  }

  /**
   * The closed forms of `values` computed as if `v`'s were `s` (re-rolling reads a remainder
   * block at another index this way, codegen/reroll.ts). Nothing computed meanwhile stays
   * cached: the cache, loop exits and block facts are left as they were.
   */
  closedFormsWith(v: Value, s: Scev, values: readonly Value[]): Map<Value, Scev> {
    const replaced = [v, ...values];
    const saved = replaced.map((x) => this.cache.get(x));
    const mark = this.cacheLog.length;
    const exits = new Set(this.exits.keys());
    const facts = new Set(this.blockFacts.keys());
    for (const x of replaced) this.cache.delete(x);
    this.cache.set(v, s);
    try {
      return new Map(values.map((x) => [x, this.getScev(x)] as const));
    } finally {
      for (const x of this.cacheLog.splice(mark)) this.cache.delete(x);
      replaced.forEach((x, k) => {
        const old = saved[k];
        if (old) this.cache.set(x, old);
        else this.cache.delete(x);
      });
      for (const l of [...this.exits.keys()]) if (!exits.has(l)) this.exits.delete(l);
      for (const b of [...this.blockFacts.keys()]) if (!facts.has(b)) this.blockFacts.delete(b);
    }
  }

  /**
   * Whether `x` is never negative where `block` runs: from the branch facts there, or, for a
   * recurrence of a loop around `block` with a constant start and step and a constant
   * backedge-taken count (truncated or extended), from its first and last values.
   */
  private nonNegativeAt(x: Scev, block: BasicBlock | undefined): boolean {
    if (block === undefined) return false;
    if (isKnownNonNegative(x, this.factsAt(block))) return true;
    const r = this.recurrenceRange(x, block);
    return r !== undefined && r.lo >= 0n;
  }

  /** The signed range of a constant-bounded recurrence of a loop around `block`, through casts; undefined when unknown. */
  private recurrenceRange(x: Scev, block: BasicBlock): Range | undefined {
    if (x.kind === ScevKind.Truncate || x.kind === ScevKind.SignExtend || x.kind === ScevKind.ZeroExtend) {
      const r = this.recurrenceRange(x.operand, block);
      const f = fullRange(x.bits);
      if (r === undefined || (x.kind === ScevKind.ZeroExtend && r.lo < 0n)) return undefined;
      return r.lo < f.lo || r.hi > f.hi ? undefined : r;
    }
    if (x.kind !== ScevKind.AddRec || x.operands.length !== 2) return undefined;
    const loop = x.loop as Loop;
    if (!loop.containsBlock(block) || this.exitsInProgress.has(loop)) return undefined;
    const start = constantValue(x.operands[0]!);
    const step = constantValue(x.operands[1]!);
    this.exitsInProgress.add(loop);
    let btc: bigint | undefined;
    try {
      btc = constantValue(this.backedgeTakenCount(loop));
    } finally {
      this.exitsInProgress.delete(loop);
    }
    if (start === undefined || step === undefined || btc === undefined || btc < 0n) return undefined;
    const last = start + step * btc;
    const r = { lo: start < last ? start : last, hi: start < last ? last : start };
    const f = fullRange(x.bits);
    return r.lo < f.lo || r.hi > f.hi ? undefined : r;
  }

  private compute(v: Value): Scev {
    switch (v.kind) {
      case 'const-int':
        return this.ctx.constant(v.value, v.type.bits);
      case 'const-null':
      case 'zeroinitializer':
        return this.ctx.constant(0n, this.bitsOf(v));
      case 'const-expr':
        return this.computeConstExpr(v);
      case 'instruction':
        return this.computeInstruction(v);
      default:
        return this.unknownFor(v);
    }
  }

  private computeConstExpr(e: ConstantExpr): Scev {
    switch (e.opcode) {
      case 'getelementptr': return this.gep(e.operands[0]!, e.sourceElementType!, e.operands.slice(1));
      case 'bitcast': case 'addrspacecast': case 'ptrtoint': case 'inttoptr':
        return this.ctx.resize(this.getScev(e.operands[0]!), this.bitsOf(e), false);
      default: return this.unknownFor(e);
    }
  }

  private computeInstruction(i: Instruction): Scev {
    if (!this.isScevable(i)) return this.unknownFor(i);
    const ctx = this.ctx;
    const op = (k: number): Scev => this.getScev(i.operands[k]!);
    const wrap = ((i.flags & InstFlag.NoSignedWrap) ? NoWrap.NSW : 0) | ((i.flags & InstFlag.NoUnsignedWrap) ? NoWrap.NUW : 0);
    const bits = this.bitsOf(i);
    switch (i.opcode) {
      case 'add': return ctx.add([op(0), op(1)], wrap);
      case 'sub': return ctx.add([op(0), ctx.negate(op(1))], wrap);
      case 'mul': return ctx.mul([op(0), op(1)], wrap);
      case 'shl': {
        const c = constantValue(op(1));
        return c === undefined || c < 0n || c >= BigInt(bits) ? this.unknownFor(i) : ctx.mul([op(0), ctx.constant(1n << c, bits)], wrap);
      }
      case 'lshr': {
        const c = constantValue(op(1));
        return c === undefined || c < 0n || c >= BigInt(bits) ? this.unknownFor(i) : ctx.udiv(op(0), ctx.constant(1n << c, bits));
      }
      case 'udiv': return ctx.udiv(op(0), op(1));
      case 'sdiv': case 'srem': {
        // By a positive constant, of a value never negative where it is computed: the unsigned
        // operation (a parameter specialized to a constant, `b[i / s]` with s = 4, comes here).
        const c = op(1);
        if (c.kind !== ScevKind.Constant || c.value <= 0n || !this.nonNegativeAt(op(0), i.parent)) return this.unknownFor(i);
        const x = op(0);
        return i.opcode === 'sdiv' ? ctx.udiv(x, c) : ctx.add([x, ctx.negate(ctx.mul([c, ctx.udiv(x, c)]))]);
      }
      case 'urem': {
        // x urem c = x - c * (x /u c), as LLVM writes it.
        const c = op(1);
        if (c.kind !== ScevKind.Constant || c.value <= 0n) return this.unknownFor(i);
        const x = op(0);
        return ctx.add([x, ctx.negate(ctx.mul([c, ctx.udiv(x, c)]))]);
      }
      case 'select': return this.selectMinMax(i) ?? this.unknownFor(i);
      case 'ashr': {
        // `ashr (x << c) + k << c, c` (sign-extension in a register): sext(trunc(x + k)).
        const c = constantValue(op(1));
        const x = op(0);
        if (c === undefined || c <= 0n || c >= BigInt(bits) || trailingZeros(x) < Number(c)) return this.unknownFor(i);
        const narrow = bits - Number(c);
        const divided = exactDivide(ctx, x, 1n << c);
        if (divided.kind === ScevKind.UDiv) return this.unknownFor(i);
        return ctx.signExtend(ctx.truncate(divided, narrow), bits);
      }
      case 'xor': {
        // xor x, -1 is -1 - x.
        const c = constantValue(op(1));
        return c === -1n ? ctx.minus(ctx.constant(-1n, bits), op(0)) : this.unknownFor(i);
      }
      case 'or': {
        // Disjoint bits: `or %x, c` with c below x's known trailing zeros is an add.
        const c = constantValue(op(1));
        const x = op(0);
        if (c !== undefined && c >= 0n && c < 1n << BigInt(trailingZeros(x))) return ctx.add([x, op(1)]);
        return this.unknownFor(i);
      }
      case 'and': {
        const c = constantValue(op(1));
        if (c === undefined) return this.unknownFor(i);
        const u = BigInt.asUintN(bits, c);
        const x = op(0);
        // Low-bit mask 2^k-1: x mod 2^k.
        if (u > 0n && (u & (u + 1n)) === 0n) {
          const p = ctx.constant(u + 1n, bits);
          return ctx.add([x, ctx.negate(ctx.mul([p, ctx.udiv(x, p)]))]);
        }
        // High-bit mask ~(2^k-1) over the value's significant bits: 2^k * (x /u 2^k).
        const low = u & -u;
        const significant = x.kind === ScevKind.ZeroExtend ? BigInt(x.operand.bits)
          : isKnownNonNegative(x, new Map()) ? BigInt(bits - 1) : BigInt(bits);
        const ones = (1n << significant) - 1n;
        if (low > 1n && ((u | (low - 1n)) & ones) === ones) {
          const p = ctx.constant(low, bits);
          return ctx.mul([p, ctx.udiv(x, p)]);
        }
        return this.unknownFor(i);
      }
      case 'zext': return ctx.zeroExtend(op(0), bits);
      case 'sext': return ctx.signExtend(op(0), bits);
      case 'trunc': return ctx.truncate(op(0), bits);
      case 'bitcast': case 'addrspacecast': case 'ptrtoint': case 'inttoptr':
        return this.isScevable(i.operands[0]!) ? ctx.resize(op(0), bits, false) : this.unknownFor(i);
      case 'getelementptr': return this.gep(i.operands[0]!, i.sourceElementType!, i.operands.slice(1), (i.flags & InstFlag.InBounds) !== 0);
      case 'phi': return this.phi(i);
      default: return this.unknownFor(i);
    }
  }

  /** `select (icmp pred a, b), a, b` and its mirror images are max/min (LLVM's createNodeForSelect). */
  private selectMinMax(i: Instruction): Scev | undefined {
    const [cond, t, f] = i.operands as [Value, Value, Value];
    if (cond.kind !== 'instruction' || cond.opcode !== 'icmp' || cond.operands[0]!.type.kind !== 'int') return undefined;
    const ctx = this.ctx;
    const a = this.getScev(cond.operands[0]!);
    const b = this.getScev(cond.operands[1]!);
    const tv = this.getScev(t);
    const fv = this.getScev(f);
    if (a.bits !== tv.bits) return undefined;
    const pred = cond.predicate as IntPredicate;
    // x == 0 ? 1 : x (and x != 0 ? x : 1) is umax(1, x).
    const zero = b.kind === ScevKind.Constant && b.value === 0n;
    const one = (v: Scev): boolean => v.kind === ScevKind.Constant && v.value === 1n;
    if (zero && ((pred === 'eq' && one(tv) && fv === a) || (pred === 'ne' && tv === a && one(fv)))) {
      return ctx.umax(ctx.constant(1n, a.bits), a);
    }
    const greater = pred === 'sgt' || pred === 'sge' || pred === 'ugt' || pred === 'uge';
    const less = pred === 'slt' || pred === 'sle' || pred === 'ult' || pred === 'ule';
    if (!greater && !less) return undefined;
    const signed = pred[0] === 's';
    // (a > b ? a : b) is max; (a > b ? b : a) is min; the reverse for <.
    let pickMax: boolean;
    if (tv === a && fv === b) pickMax = greater;
    else if (tv === b && fv === a) pickMax = less;
    else return undefined;
    const kind = pickMax ? (signed ? ScevKind.SMax : ScevKind.UMax) : (signed ? ScevKind.SMin : ScevKind.UMin);
    return ctx.minmax(kind, [a, b]);
  }

  /** Base plus scaled indices; `inbounds` makes the offset arithmetic nsw (as LLVM does). */
  private gep(base: Value, sourceType: Type, indices: readonly Value[], inbounds = false): Scev {
    const ctx = this.ctx;
    const terms: Scev[] = [this.getScev(base)];
    let t: Type = sourceType;
    indices.forEach((idx, k) => {
      const index = this.ctx.resize(this.getScev(idx), 64, true);
      if (k === 0) {
        terms.push(ctx.mul([ctx.constant(allocSize(t), 64), index], inbounds ? NoWrap.NSW : NoWrap.None));
        return;
      }
      if (t.kind === 'struct') {
        const field = Number(constantValue(index) ?? 0n);
        terms.push(ctx.constant(structLayout(t.elements ?? [], t.packed).offsets[field] ?? 0, 64));
        t = t.elements?.[field] ?? t;
      } else if (t.kind === 'array' || t.kind === 'vector') {
        t = t.element;
        terms.push(ctx.mul([ctx.constant(allocSize(t), 64), index], inbounds ? NoWrap.NSW : NoWrap.None));
      }
    });
    return ctx.add(terms, inbounds ? NoWrap.NSW : NoWrap.None);
  }

  private phi(p: Instruction): Scev {
    const incoming = p.operands;
    const blocks = p.incomingBlocks!;
    const block = p.parent!;
    const loop = this.loops.loopFor(block);
    if (loop && loop.header === block) {
      // A header phi depends on itself through the back edge: only a recurrence can describe it.
      return (incoming.length === 2 ? this.addRecFromPhi(p, loop) : undefined) ?? this.unknownFor(p);
    }
    // All incoming values the same (LCSSA phis have one): that value, seen from here.
    const distinct = [...new Set(incoming.map((v) => this.getScev(v)))];
    if (distinct.length === 1) return this.atScope(distinct[0]!, loop);
    // Incoming values that coincide wherever their edges run (a guard's 0 meeting i*n when i == 0).
    for (const candidate of distinct) {
      if (candidate.kind === ScevKind.CouldNotCompute) continue;
      const agrees = incoming.every((v, k) => {
        const s = this.getScev(v);
        if (s === candidate) return true;
        const d = rangeOf(this.ctx.minus(candidate, s), this.edgeFacts(blocks[k]!, block));
        return d.lo === 0n && d.hi === 0n;
      });
      if (agrees) return this.atScope(candidate, loop);
    }
    if (incoming.length === 2) {
      const merged = this.skipOrExitPhi(p, blocks[0]!, incoming[0]!, blocks[1]!, incoming[1]!) ?? this.skipOrExitPhi(p, blocks[1]!, incoming[1]!, blocks[0]!, incoming[0]!);
      if (merged) return merged;
    }
    return this.unknownFor(p);
  }

  /** createAddRecFromPHI: the phi is `{start,+,step}<loop>` when the latch value is phi + step, step invariant. */
  private addRecFromPhi(p: Instruction, loop: Loop): Scev | undefined {
    const blocks = p.incomingBlocks!;
    const insideIdx = blocks.findIndex((b) => loop.containsBlock(b));
    if (insideIdx < 0 || loop.containsBlock(blocks[1 - insideIdx]!)) return undefined;
    const startValue = p.operands[1 - insideIdx]!;
    const beValue = p.operands[insideIdx]!;
    const placeholder = this.unknownFor(p);
    const mark = this.cacheLog.length;
    this.cache.set(p, placeholder);
    this.cacheLog.push(p);
    const be = this.getScev(beValue);
    // Forget everything computed against the placeholder.
    for (const v of this.cacheLog.splice(mark)) this.cache.delete(v);
    if (be.kind !== ScevKind.Add || !be.operands.includes(placeholder)) return this.addRecFromPreviousPhi(p, loop, startValue, beValue);
    const rest = [...be.operands];
    rest.splice(rest.indexOf(placeholder), 1);
    const step = this.ctx.add(rest);
    if (!this.ctx.isLoopInvariant(step, loop)) return undefined;
    let flags = NoWrap.None;
    if (beValue.kind === 'instruction' && beValue.opcode === 'add' && beValue.operands.includes(p)) {
      if (beValue.flags & InstFlag.NoSignedWrap) flags |= NoWrap.NSW;
      if (beValue.flags & InstFlag.NoUnsignedWrap) flags |= NoWrap.NUW;
    }
    return this.ctx.addRec([this.getScev(startValue), step], loop, flags);
  }

  /**
   * `%prev = phi [start, pre], [%q, latch]` with `%q = {a,+,s}<loop>` another phi of the header:
   * %prev is %q one iteration late, `{start,+,s}<loop>` when start == a - s (the `i` beside
   * `i + 1` that -O3 leaves for `for (j = i + 1; ...)` in a loop counting i).
   */
  private addRecFromPreviousPhi(p: Instruction, loop: Loop, startValue: Value, beValue: Value): Scev | undefined {
    if (beValue === p || beValue.kind !== 'instruction' || beValue.opcode !== 'phi' || beValue.parent !== loop.header) return undefined;
    const q = this.getScev(beValue);
    if (q.kind !== ScevKind.AddRec || q.loop !== loop || q.operands.length !== 2) return undefined;
    const [a, s] = [q.operands[0]!, q.operands[1]!];
    const start = this.getScev(startValue);
    const d = rangeOf(this.ctx.minus(this.ctx.minus(a, s), start), new Map());
    if (d.lo !== 0n || d.hi !== 0n) return undefined;
    // Values of %prev are start and then those of %q: %q's no-wrap facts hold when start does not wrap either.
    const startRange = rangeOf(start, new Map());
    const flags = startRange.lo >= 0n && rangeOf(s, new Map()).lo > 0n ? q.flags : NoWrap.None;
    return this.ctx.addRec([start, s], loop, flags);
  }

  /**
   * A phi after a loop L merging L's exit value (from `exitBlock`, a block of L)
   * with the value from `skipBlock` whose branch bypasses L. It is the recurrence's
   * value after L's trip count when that count is 0 wherever the bypass edge runs
   * (as with the remainder loop of a runtime-unrolled loop).
   */
  private skipOrExitPhi(p: Instruction, skipBlock: BasicBlock, skipValue: Value, exitBlock: BasicBlock, exitValue: Value): Scev | undefined {
    const loop = this.loops.loopFor(exitBlock);
    if (!loop || loop.containsBlock(p.parent!) || !loop.exitingBlocks.includes(exitBlock)) return undefined;
    if (!successors(skipBlock).includes(p.parent!) || loop.containsBlock(skipBlock)) return undefined;
    const rec = this.getScev(exitValue);
    if (rec.kind !== ScevKind.AddRec || rec.loop !== loop || rec.operands.length !== 2) return undefined;
    const exit = this.loopExit(loop);
    if (!('backedgeTakenCount' in exit)) return undefined;
    const [start, step] = [rec.operands[0]!, rec.operands[1]!];
    // The value before the first iteration must be what the bypass brings.
    if (this.getScev(skipValue) !== this.ctx.minus(start, step)) return undefined;
    const tripCount = this.ctx.add([this.ctx.resize(exit.backedgeTakenCount, rec.bits, false), this.ctx.constant(1n, rec.bits)]);
    const facts = this.edgeFacts(skipBlock, p.parent!);
    const r = rangeOf(tripCount, facts);
    if (r.lo !== 0n || r.hi !== 0n) return undefined;
    return this.ctx.add([this.ctx.minus(start, step), this.ctx.mul([step, tripCount])]);
  }

  /**
   * `s` as seen in `scope`: recurrences of loops that do not contain `scope` are
   * replaced by their exit values; LLVM's getSCEVAtScope. A recurrence of a loop
   * that contains `scope` (an outer counter used inside an inner loop) is still
   * running there and is kept.
   */
  atScope(s: Scev, scope: Loop | undefined): Scev {
    if (s.kind === ScevKind.CouldNotCompute) return s;
    return this.ctx.rewrite(s, (e) => {
      if (e.kind !== ScevKind.AddRec || (scope && (e.loop as Loop).contains(scope))) return undefined;
      const exit = this.loopExit(e.loop as Loop);
      if (!('backedgeTakenCount' in exit)) return this.ctx.couldNotCompute;
      const inner = this.ctx.evaluateAtIteration(e as ScevAddRec, exit.backedgeTakenCount);
      return this.atScope(inner, scope);
    });
  }

  /**
   * Splits a pointer's closed form into its base (a pointer-typed unknown) and byte offset.
   * Memoized: SCoP detection asks again for every access in every candidate region around it.
   */
  pointerBase(ptr: Scev): { base: ScevUnknown; offset: Scev } | undefined {
    const known = this.pointerBases.get(ptr);
    if (known !== undefined) return known ?? undefined;
    const split = this.splitPointer(ptr);
    this.pointerBases.set(ptr, split ?? null);
    return split;
  }

  private splitPointer(ptr: Scev): { base: ScevUnknown; offset: Scev } | undefined {
    const isPtr = (s: Scev): s is ScevUnknown => s.kind === ScevKind.Unknown && (s.value as Value).type.kind === 'ptr';
    if (isPtr(ptr)) return { base: ptr, offset: this.ctx.constant(0n, 64) };
    if (ptr.kind === ScevKind.Add) {
      const bases = ptr.operands.filter(isPtr);
      const inner = ptr.operands.filter((o) => o.kind === ScevKind.AddRec);
      if (bases.length === 1) return { base: bases[0]!, offset: this.ctx.add(ptr.operands.filter((o) => o !== bases[0])) };
      if (bases.length === 0 && inner.length === 1) {
        const split = this.pointerBase(inner[0]!);
        if (split) return { base: split.base, offset: this.ctx.add([split.offset, ...ptr.operands.filter((o) => o !== inner[0])]) };
      }
      return undefined;
    }
    if (ptr.kind === ScevKind.AddRec) {
      const split = this.pointerBase(ptr.operands[0]!);
      if (!split || ptr.operands.slice(1).some((o) => this.pointerBase(o))) return undefined;
      return { base: split.base, offset: this.ctx.addRec([split.offset, ...ptr.operands.slice(1)], ptr.loop, ptr.flags) };
    }
    return undefined;
  }

  // ---- facts from dominating branches ----

  /**
   * Facts that hold whenever `block` runs: what holds on every edge into it (the join of
   * the incoming edges' facts, back edges excluded).
   */
  factsAt(block: BasicBlock): Facts {
    const known = this.blockFacts.get(block);
    if (known) return known;
    // A cycle through a phi's closed form back to this block: nothing known yet (not cached).
    if (this.factsInProgress.has(block)) return new Map();
    this.factsInProgress.add(block);
    try {
      const facts = this.joinIncoming(block);
      this.blockFacts.set(block, facts);
      return facts;
    } finally {
      this.factsInProgress.delete(block);
    }
  }

  private joinIncoming(b: BasicBlock): Facts {
    const preds = this.dt.cfgPredecessors(b).filter((p) => this.dt.isReachable(p) && !this.dt.dominates(b, p));
    if (preds.length === 0) return new Map();
    let joined: Map<Scev, Range> | undefined;
    const edges = new Map<BasicBlock, Facts>();
    for (const p of preds) {
      const f = this.edgeFacts(p, b);
      edges.set(p, f);
      if (!joined) {
        joined = new Map(f);
        continue;
      }
      for (const [k, r] of joined) {
        const o = f.get(k);
        if (!o) joined.delete(k);
        else joined.set(k, { lo: r.lo < o.lo ? r.lo : o.lo, hi: r.hi > o.hi ? r.hi : o.hi });
      }
    }
    return this.phiFacts(b, edges, joined!);
  }

  /**
   * The range of each integer PHI of a merge (not a loop header) that is none of its incoming
   * values' SCEV: the union of their ranges on the incoming edges. uBLAS's size
   * `n = argc < 2 ? 60 : strtol(...)` checked to lie in [1, 20000] is then known non-negative
   * where its unsigned loop guards are read as signed ones.
   */
  private phiFacts(b: BasicBlock, edges: ReadonlyMap<BasicBlock, Facts>, facts: Map<Scev, Range>): Map<Scev, Range> {
    if (edges.size < 2 || edges.size !== this.dt.cfgPredecessors(b).length) return facts;
    for (const phi of b.instructions) {
      if (phi.opcode !== 'phi') break;
      if (phi.type.kind !== 'int' || !phi.incomingBlocks) continue;
      const s = this.getScev(phi);
      if (s.kind !== ScevKind.Unknown || facts.has(s)) continue;
      let lo: bigint | undefined;
      let hi: bigint | undefined;
      for (const [k, from] of phi.incomingBlocks.entries()) {
        const edge = edges.get(from);
        if (!edge) return facts;
        const r = rangeOf(this.getScev(phi.operands[k]!), edge);
        lo = lo === undefined || r.lo < lo ? r.lo : lo;
        hi = hi === undefined || r.hi > hi ? r.hi : hi;
      }
      const full = fullRange(s.bits);
      if (lo !== undefined && hi !== undefined && (lo > full.lo || hi < full.hi)) facts = withFact(this.ctx, facts, s, { lo, hi });
    }
    return facts;
  }

  /** Facts on the edge `from` -> `to`: those of `from` plus its branch condition's outcome. */
  edgeFacts(from: BasicBlock, to: BasicBlock): Facts {
    const base = this.factsAt(from);
    const t = terminator(from);
    if (t?.opcode === 'switch') {
      // Only a case edge gives a fact (x == c); the default edge excludes points, not ranges.
      const cases = switchCases(t).filter((c) => c.dest === to);
      const x = this.getScev(t.operands[0]!);
      if (cases.length !== 1 || t.operands[1] === to) return base;
      const c = cases[0]!.value;
      return withFact(this.ctx, base, x, { lo: c, hi: c });
    }
    if (!t || t.opcode !== 'br' || t.operands.length !== 3) return base;
    const [cond, ifTrue, ifFalse] = t.operands as [Value, BasicBlock, BasicBlock];
    if (ifTrue === ifFalse) return base;
    return this.conditionFacts(cond, to === ifTrue, base);
  }

  /** Adds what `cond` being `outcome` implies to `facts`. */
  conditionFacts(cond: Value, outcome: boolean, facts: Facts): Facts {
    if (cond.kind !== 'instruction') return facts;
    if ((cond.opcode === 'and' && outcome) || (cond.opcode === 'or' && !outcome)) {
      return this.conditionFacts(cond.operands[1]!, outcome, this.conditionFacts(cond.operands[0]!, outcome, facts));
    }
    if (cond.opcode === 'select' && cond.operands[2]!.kind === 'const-int' && cond.operands[2].value === 0n && outcome) {
      // `select a, b, false` is `a && b`.
      return this.conditionFacts(cond.operands[1]!, true, this.conditionFacts(cond.operands[0]!, true, facts));
    }
    if (cond.opcode !== 'icmp' || cond.operands[0]!.type.kind !== 'int') return facts;
    let pred = cond.predicate as IntPredicate;
    if (!outcome) pred = invertPredicate[pred];
    let lhs = this.getScev(cond.operands[0]!);
    let rhs = this.getScev(cond.operands[1]!);
    if (lhs.kind === ScevKind.Constant && rhs.kind !== ScevKind.Constant) {
      [lhs, rhs] = [rhs, lhs];
      pred = swapPredicate[pred];
    }
    const c = constantValue(rhs);
    if (c === undefined) return facts;
    let out: Facts = facts;
    if (pred === 'ne') {
      // x != c narrows a range that ends at c.
      const r = rangeOf(lhs, facts);
      if (r.lo === c) out = withFact(this.ctx, out, lhs, { lo: c + 1n, hi: r.hi });
      else if (r.hi === c) out = withFact(this.ctx, out, lhs, { lo: r.lo, hi: c - 1n });
    } else {
      const r = predicateRange(pred, c, lhs.bits) ?? unsignedAsSignedRange(pred, c, lhs.bits);
      if (r) out = withFact(this.ctx, out, lhs, r);
      // `x + c0` in a range: x in that range shifted (-O3's `x - 20001 <u -20000` for 1 <= x <= 20000).
      const shifted = r && shiftedOperand(lhs);
      if (shifted) {
        const moved = { lo: r.lo - shifted.offset, hi: r.hi - shifted.offset };
        const full = fullRange(lhs.bits);
        if (moved.lo >= full.lo && moved.hi <= full.hi) out = withFact(this.ctx, out, shifted.operand, moved);
      }
    }
    // Unsigned facts (and x != 0) are facts on the value zero-extended, as widened IVs use it.
    if (lhs.bits < 64 && (isUnsignedPredicate(pred) || pred === 'ne' || pred === 'eq')) {
      const wide = this.ctx.zeroExtend(lhs, 64);
      const top = (1n << BigInt(lhs.bits)) - 1n;
      const u = BigInt.asUintN(lhs.bits, c);
      const r: Range | undefined =
        pred === 'ult' ? (u > 0n ? { lo: 0n, hi: u - 1n } : undefined)
        : pred === 'ule' ? { lo: 0n, hi: u }
        : pred === 'ugt' ? (u < top ? { lo: u + 1n, hi: top } : undefined)
        : pred === 'uge' ? { lo: u, hi: top }
        : pred === 'eq' ? { lo: u, hi: u }
        : u === 0n ? { lo: 1n, hi: top } : undefined;
      if (r) out = withFact(this.ctx, out, wide, r);
    }
    return out;
  }

  /** Facts on entry to `loop`: at its preheader, or on the edge from its single outside predecessor. */
  entryFacts(loop: Loop): Facts {
    if (loop.preheader) return this.factsAt(loop.preheader);
    const outside = this.dt.cfgPredecessors(loop.header).filter((p) => !loop.containsBlock(p));
    return outside.length === 1 ? this.edgeFacts(outside[0]!, loop.header) : this.factsAt(loop.header);
  }

  // ---- loop exits ----

  /** The backedge-taken count and exit condition of `loop`, or why we cannot give them. */
  loopExit(loop: Loop): LoopExit | ExitFailure {
    const known = this.exits.get(loop);
    if (known) return known;
    const r = this.computeLoopExit(loop);
    this.exits.set(loop, r);
    return r;
  }

  backedgeTakenCount(loop: Loop): Scev {
    const e = this.loopExit(loop);
    return 'backedgeTakenCount' in e ? e.backedgeTakenCount : this.ctx.couldNotCompute;
  }

  private computeLoopExit(loop: Loop): LoopExit | ExitFailure {
    const ctx = this.ctx;
    const latch = loop.latch;
    if (!latch) return { cause: 'complex-cfg', detail: `loop ${loop.headerName} has ${loop.latches.length} latches` };
    // Exits into error blocks do not count: a SCoP assumes them not taken (ScopErrorEdge).
    const exiting = loop.exitingBlocks.filter((b) => successors(b).some((s) => !loop.containsBlock(s) && !this.errorBlocks().has(s)));
    if (exiting.length !== 1 || exiting[0] !== latch) {
      return { cause: 'complex-cfg', detail: `loop ${loop.headerName} exits from ${loop.exitingBlocks.map((b) => this.nameOf(b)).join(', ')}, not only from its latch` };
    }
    const t = terminator(latch)!;
    if (t.opcode !== 'br' || t.operands.length !== 3) return { cause: 'complex-cfg', detail: `latch ${this.nameOf(latch)} ends in ${t.opcode}` };
    const [cond, ifTrue] = t.operands as [Value, BasicBlock, BasicBlock];
    if (cond.kind !== 'instruction' || cond.opcode !== 'icmp' || cond.operands[0]!.type.kind !== 'int') {
      // A pointer chase (p != NULL) or a floating-point test: the trip count is not computable.
      return { cause: 'non-affine-loop-bound', detail: `exit condition of ${loop.headerName} is not an integer comparison` };
    }
    let pred = cond.predicate as IntPredicate;
    if (!loop.containsBlock(ifTrue)) pred = invertPredicate[pred];
    let lhs = this.getScev(cond.operands[0]!);
    let rhs = this.getScev(cond.operands[1]!);
    const isRec = (s: Scev): s is ScevAddRec => s.kind === ScevKind.AddRec && s.loop === loop;
    if (!isRec(lhs) && isRec(rhs)) {
      [lhs, rhs] = [rhs, lhs];
      pred = swapPredicate[pred];
    }
    if (!isRec(lhs)) {
      const varies = !ctx.isLoopInvariant(lhs, loop) || !ctx.isLoopInvariant(rhs, loop);
      return varies
        ? { cause: 'non-canonical-indvar', detail: `no induction variable in the exit condition of ${loop.headerName}` }
        : { cause: 'other', detail: `exit condition of ${loop.headerName} does not change in the loop` };
    }
    if (!ctx.isLoopInvariant(rhs, loop)) {
      return { cause: 'non-affine-loop-bound', detail: `bound of ${loop.headerName} varies in the loop` };
    }
    if (lhs.operands.length !== 2) return { cause: 'non-canonical-indvar', detail: `induction variable of ${loop.headerName} is not affine` };
    const facts = this.entryFacts(loop);
    let unsignedAsSigned = false;
    if (isUnsignedPredicate(pred)) {
      const start = lhs.operands[0]!;
      // Read as signed when every value compared is non-negative: a count-down must not wrap (nuw).
      const stepNonNeg = isKnownNonNegative(lhs.operands[1]!, facts) || (lhs.flags & NoWrap.NUW) !== 0;
      if (!(isKnownNonNegative(rhs, facts) && isKnownNonNegative(start, facts) && (stepNonNeg || countsDownToBound(lhs, pred, rhs, facts)))) {
        return { cause: 'unsigned-comparison', detail: `unsigned exit condition of ${loop.headerName} (${pred})` };
      }
      unsignedAsSigned = true;
      pred = toSigned[pred];
    }
    const start = lhs.operands[0]!;
    const step = constantValue(lhs.operands[1]!);
    if (step === undefined || step === 0n) {
      return { cause: 'non-affine-loop-bound', detail: `step of ${loop.headerName} is not a non-zero constant` };
    }
    let btc: Scev | undefined;
    const diff = (a: Scev, b: Scev): Scev => ctx.minus(a, b);
    const nonNeg = (s: Scev): Scev => (isKnownNonNegative(s, facts) ? s : ctx.smax(ctx.constant(0n, s.bits), s));
    // The first k at which the loop leaves: ceil(distance / |step|), never below 0.
    const ceilDiv = (distance: Scev, by: bigint): Scev => {
      const d = nonNeg(distance);
      return by === 1n ? d : exactDivide(ctx, ctx.add([d, ctx.constant(by - 1n, d.bits)]), by);
    };
    const one = ctx.constant(1n, rhs.bits);
    switch (pred) {
      case 'ne': // leaves when lhs == rhs: (rhs - start) / step iterations after the first
        btc = exactDivide(ctx, step > 0n ? diff(rhs, start) : diff(start, rhs), step > 0n ? step : -step);
        break;
      case 'slt': if (step > 0n) btc = ceilDiv(diff(rhs, start), step); break;
      case 'sle': if (step > 0n) btc = ceilDiv(ctx.add([diff(rhs, start), one]), step); break;
      case 'sgt': if (step < 0n) btc = ceilDiv(diff(start, rhs), -step); break;
      case 'sge': if (step < 0n) btc = ceilDiv(ctx.add([diff(start, rhs), one]), -step); break;
      default: break;
    }
    if (!btc) return { cause: 'non-affine-loop-bound', detail: `cannot count the iterations of ${loop.headerName} (${pred}, step ${step})` };
    return { backedgeTakenCount: btc, continueCondition: { lhs, predicate: pred, rhs }, unsignedAsSigned };
  }
}

/**
 * An unsigned exit test of a count-down that every value it compares reads the same signed:
 * `iv >u rhs` (or `>=u`) with `iv` starting non-negative and falling by a constant s, `rhs`
 * non-negative. The loop leaves at the first value at most `rhs` (below it for `>=u`), which is
 * at least `rhs + 1 - s` (`rhs - s`): non-negative when `rhs >= s - 1` (`rhs >= s`), so no
 * compared value wraps below zero. clang -O3 writes `for (j = n - 2; j >= 1; j--)` as
 * `icmp ugt i64 %j, 1` (PolyBench adi's back substitutions).
 */
function countsDownToBound(rec: ScevAddRec, pred: IntPredicate, rhs: Scev, facts: Facts): boolean {
  const step = constantValue(rec.operands[1]!);
  if (step === undefined || step >= 0n) return false;
  const need = pred === 'ugt' ? -step - 1n : pred === 'uge' ? -step : undefined;
  return need !== undefined && rangeOf(rhs, facts).lo >= need;
}

/** The case values and destinations of a `switch` ([cond, default, v0, d0, v1, d1, ...]). */
export function switchCases(t: Instruction): { value: bigint; dest: BasicBlock }[] {
  const out: { value: bigint; dest: BasicBlock }[] = [];
  for (let k = 2; k + 1 < t.operands.length; k += 2) {
    const v = t.operands[k]!;
    if (v.kind === 'const-int') out.push({ value: v.value, dest: t.operands[k + 1] as BasicBlock });
  }
  return out;
}

/** `s / d` when every term of `s` is divisible by `d` (through sums, products and recurrences), else `s /u d`. */
function exactDivide(ctx: ScevContext, s: Scev, d: bigint): Scev {
  if (d === 1n) return s;
  const exact = divideTerms(ctx, s, d);
  return exact ?? ctx.udiv(s, ctx.constant(d, s.bits));
}

function divideTerms(ctx: ScevContext, s: Scev, d: bigint): Scev | undefined {
  switch (s.kind) {
    case ScevKind.Constant:
      return s.value % d === 0n ? ctx.constant(s.value / d, s.bits) : undefined;
    case ScevKind.Mul: {
      const c = s.operands[0]!;
      if (c.kind !== ScevKind.Constant || c.value % d !== 0n) return undefined;
      return ctx.mul([ctx.constant(c.value / d, s.bits), ...s.operands.slice(1)]);
    }
    case ScevKind.Add: {
      const parts = s.operands.map((o) => divideTerms(ctx, o, d));
      return parts.every((p): p is Scev => p !== undefined) ? ctx.add(parts) : undefined;
    }
    case ScevKind.AddRec: {
      const parts = s.operands.map((o) => divideTerms(ctx, o, d));
      return parts.every((p): p is Scev => p !== undefined) ? ctx.addRec(parts, s.loop) : undefined;
    }
    default:
      return undefined;
  }
}

/** The values of x for which `x pred c` holds, as one signed range (undefined when it is not one range). */
function predicateRange(pred: IntPredicate, c: bigint, bits: number): Range | undefined {
  const f = fullRange(bits);
  switch (pred) {
    case 'eq': return { lo: c, hi: c };
    case 'slt': return { lo: f.lo, hi: c - 1n };
    case 'sle': return { lo: f.lo, hi: c };
    case 'sgt': return { lo: c + 1n, hi: f.hi };
    case 'sge': return { lo: c, hi: f.hi };
    case 'ult': return c > 0n ? { lo: 0n, hi: c - 1n } : undefined;
    case 'ule': return c >= 0n ? { lo: 0n, hi: c } : undefined;
    default: return undefined;
  }
}

/**
 * The signed range an unsigned comparison with a constant implies, when the unsigned one lies in
 * one half of the values (all below 2^(bits-1), or all at or above it: negative as signed).
 */
function unsignedAsSignedRange(pred: IntPredicate, c: bigint, bits: number): Range | undefined {
  const u = BigInt.asUintN(bits, c);
  const top = (1n << BigInt(bits)) - 1n;
  const r = pred === 'ult' ? (u > 0n ? { lo: 0n, hi: u - 1n } : undefined)
    : pred === 'ule' ? { lo: 0n, hi: u }
    : pred === 'ugt' ? (u < top ? { lo: u + 1n, hi: top } : undefined)
    : pred === 'uge' ? { lo: u, hi: top }
    : undefined;
  if (!r) return undefined;
  const half = 1n << BigInt(bits - 1);
  if (r.hi < half) return r;
  if (r.lo >= half) return { lo: r.lo - (top + 1n), hi: r.hi - (top + 1n) };
  return undefined;
}

/** `c0 + x` (an add of a constant and one other operand) as x and c0. */
function shiftedOperand(s: Scev): { operand: Scev; offset: bigint } | undefined {
  if (s.kind !== ScevKind.Add || s.operands.length !== 2) return undefined;
  const [a, b] = s.operands as [Scev, Scev];
  const c = constantValue(a);
  return c !== undefined && constantValue(b) === undefined ? { operand: b, offset: c } : undefined;
}

/** Low bits known to be zero in every value of `s`. */
export function trailingZeros(s: Scev): number {
  switch (s.kind) {
    case ScevKind.Constant: {
      if (s.value === 0n) return s.bits;
      let n = 0;
      let v = s.value;
      while ((v & 1n) === 0n) { v >>= 1n; n++; }
      return n;
    }
    case ScevKind.Add:
    case ScevKind.AddRec:
      return Math.min(...s.operands.map(trailingZeros));
    case ScevKind.Mul:
      return Math.min(s.bits, s.operands.reduce((a, o) => a + trailingZeros(o), 0));
    case ScevKind.ZeroExtend:
    case ScevKind.SignExtend:
      return trailingZeros(s.operand);
    default:
      return 0;
  }
}

export { isZero };

export const scalarEvolutionAnalysis: AnalysisKey<ScalarEvolution> = {
  name: 'scalar-evolution',
  compute: (fn, am) => new ScalarEvolution(fn, am.get(loopAnalysis, fn), am.get(dominatorTreeAnalysis, fn)),
};

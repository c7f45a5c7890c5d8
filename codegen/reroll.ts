// Re-rolling loops clang's -O3 already runtime-unrolled, for the fast path only.
//
// The bare pipe hands us -O3 IR whose innermost loops the front end unrolled by U with a
// remainder after them, a loop (U > 2) or, for U = 2, one guarded copy of the body:
//
//   for (t = 0; t < trip / U; t++) { body(a + U*t + 0); ...; body(a + U*t + U-1); }   // Stmt_u[o, t]
//   for (r = 0; r < trip % U; r++) body(S + r);                                        // Stmt_r[o, r]
//   if (trip % 2) body(S);                                                              // or Stmt_r[o]
//
// with S = a + U * (trip / U) (the unroll preheader's `unroll_iter`, the remainder's `xtraiter`;
// a single remainder block reads S from the PHI that merges the unrolled loop's exit index with
// its bypass). Generated as they are, the U copies become stride-U accesses the loop vectorizer
// handles poorly. When the copies are exactly the remainder's body at the indices a + U*t + c,
// the fast path runs instead the remainder's body over the whole index range:
//
//   for (x = 0; x < trip; x++) body(a + x);                    // Stmt_r[o, x] (Stmt_u[o, x] for a block)
//
// The slow path (the original code) is untouched. What makes this exact (else the pair keeps
// its unrolled form):
//   - the unrolled loop is an innermost single-block loop, the statement's block; the remainder
//     is one too around the same outer loops, or a block of those outer loops that reads the
//     unrolled loop's exit index from one PHI and otherwise only values computed before the
//     unrolled loop; nothing is scheduled between them, and they touch only arrays (no scalars);
//   - the memory operations of copy c are, in order, those of the remainder's body (U * m of
//     them against m): same opcodes, types and flags, operands matched recursively; integer
//     and pointer operands are compared by scalar evolution, the copy's at iteration T against
//     the remainder's at index a + U*T + c (its loop's iteration a + U*T + c - S, or its block
//     read with the exit index's closed form replaced by a + U*T + c), as canonical expressions
//     (equal for every T). The rolled code therefore performs the same memory operations in the
//     same order;
//   - the rolled body's accesses are to consecutive elements from one index to the next (else
//     the loop vectorizer leaves the rolled loop scalar, and the SLP-packed copies are faster);
//   - with K = S - a in isl, the copies' instances { [o, U*t + c] } and the remainder's
//     { [o, K + r] } (a block's: { [o, K] }) are disjoint, the remainder's come after the
//     copies', and together they are exactly { [o, x] : 0 <= x < n(o) } for some n: no index
//     twice, none skipped.
// The rolled loop is marked parallel only when no two of its iterations touch the same element
// with a write (from the accesses of both statements mapped onto x).
import { Aff, type Ctx, Map as IslMap, MultiAff, MultiPwAff, Set as IslSet, type Space } from 'isl-wasm';
import { constantsEqual, InstFlag, isConstant, typesEqual, type BasicBlock, type Instruction, type IrBuilder, type Value } from '../ir';
import type { Loop } from '../analysis/loops';
import { allocSize, type ScalarEvolution } from '../analysis/scalar-evolution';
import { NoWrap, ScevKind, type Scev, type ScevLoop } from '../analysis/scev';
import type { ScopLoop } from '../analysis/scop-detection-types';
import type { ScopModel, ScopStatementModel } from '../polyhedral/model';
import { timeConstants } from '../polyhedral/schedule';
import { ScevExpander } from './scev-expander';

/** One unrolled loop and its remainder, generated as the remainder's body over all indices. */
export interface RerolledLoop {
  readonly unrolled: ScopStatementModel;
  /** Its body is what the rolled loop runs. */
  readonly remainder: ScopStatementModel;
  /** The statement the rolled instances are named after: the remainder loop's, or the unrolled loop's for a remainder block (which has no dimension of its own). */
  readonly statement: ScopStatementModel;
  /** The model loop whose place the rolled loop takes (the last dimension of `statement`). */
  readonly loop: ScopLoop;
  readonly factor: number;
  /** The remainder's first index minus the unrolled loop's: U * (trip / U). */
  readonly offset: Scev;
  /** The first index of the loop, a. */
  readonly start: Scev;
  /** A remainder block's PHI of the unrolled loop's exit index, S (undefined for a remainder loop). */
  readonly exitIndex: Instruction | undefined;
  /** [params] -> { Stmt[o..., x] : 0 <= x < trip }: the rolled statement's instances (x = index - a). */
  readonly domain: IslSet;
  /** No two iterations of the rolled loop touch an element one of them writes. */
  readonly parallel: boolean;
}

const MEMORY = new Set(['load', 'store']);
/** Flags that say nothing about the value: tail-call markers. */
const IGNORED_FLAGS = InstFlag.Tail | InstFlag.NoTail;

/** The unrolled/remainder pairs of `model` that can be generated rolled. isl objects live in the caller's scope. */
export function planRerolls(model: ScopModel, se: ScalarEvolution, excluded: (st: ScopStatementModel) => boolean = () => false): RerolledLoop[] {
  const out: RerolledLoop[] = [];
  const used = new Set<ScopStatementModel>();
  for (const u of model.statements) {
    if (used.has(u) || excluded(u) || !isPlainLoopBody(u)) continue;
    for (const r of model.statements) {
      if (r === u || used.has(r) || excluded(r) || !onlyArrays(r)) continue;
      let plan: RerolledLoop | undefined;
      if (isPlainLoopBody(r) && sameOuterLoops(u, r)) plan = adjacent(model, u, r) ? tryPair(model, se, u, r, loopRemainder(se, r)) : undefined;
      else if (isOuterBlockOf(u, r)) plan = adjacent(model, u, r) ? tryPair(model, se, u, r, blockRemainder(se, u, r)) : undefined;
      if (plan) {
        out.push(plan);
        used.add(u).add(r);
        break;
      }
    }
  }
  return out;
}

/**
 * The statement is the whole body of an innermost single-block loop, touches arrays, and reads
 * no scalar but values computed before its loop (the same in every iteration).
 */
function isPlainLoopBody(st: ScopStatementModel): boolean {
  const l = st.loops[st.loops.length - 1]?.loop;
  return l !== undefined && l.header === st.block && l.blocks.length === 1 && st.instructions === undefined && onlyArrays(st);
}

/** The statement writes no scalar and reads none but values computed before its innermost loop. */
function onlyArrays(st: ScopStatementModel): boolean {
  return st.accesses.every((a) => {
    if (a.array.kind === 'array') return a.scalar === undefined;
    const v = a.scalar?.value;
    return a.kind === 'read' && a.array.kind === 'value' && v !== undefined && !(v.kind === 'instruction' && v.parent === st.block);
  });
}

/** `r` is a block (no loop of its own, no PHI) of the loops around `u`'s, outside `u`'s loop. */
function isOuterBlockOf(u: ScopStatementModel, r: ScopStatementModel): boolean {
  const d = u.loops.length;
  const lu = u.loops[d - 1]!.loop;
  return r.loops.length === d - 1 && r.loops.every((l, k) => l === u.loops[k]) && !lu.containsBlock(r.block) && r.block.instructions[0]?.opcode !== 'phi' && r.instructions === undefined;
}

/**
 * `r` comes right after `u` inside their outer loops: no statement of those loops is scheduled
 * between them (generating `u`'s instances at `r`'s place, or `r`'s at `u`'s, must not move them
 * past another).
 */
function adjacent(model: ScopModel, u: ScopStatementModel, r: ScopStatementModel): boolean {
  return model.ctx.scope(() => {
    const d = u.loops.length;
    // The time constants before the statements' position in their innermost common loop, and that position.
    const cu = timeConstants(u.schedule);
    const cr = timeConstants(r.schedule);
    if (!cu || !cr || cu.length < d || cr.length < d) return false;
    const outer = (c: readonly number[]) => c.slice(0, d - 1).join();
    const pu = cu[d - 1]!;
    const pr = cr[d - 1]!;
    if (pr <= pu || outer(cu) !== outer(cr)) return false;
    for (const x of model.statements) {
      if (x === u || x === r || x.loops.length < d - 1 || !x.loops.slice(0, d - 1).every((l, k) => l === u.loops[k])) continue;
      const cx = timeConstants(x.schedule);
      if (!cx || cx.length < d) return false;
      if (outer(cx) !== outer(cu)) continue;
      const px = cx[d - 1]!;
      if (px > pu && px < pr) return false;
    }
    return true;
  });
}

function sameOuterLoops(u: ScopStatementModel, r: ScopStatementModel): boolean {
  const d = u.loops.length;
  return d === r.loops.length && u.loops.slice(0, d - 1).every((l, k) => l === r.loops[k]) && u.loops[d - 1] !== r.loops[d - 1];
}

function memoryOperations(block: BasicBlock): Instruction[] | undefined {
  const ops: Instruction[] = [];
  for (const inst of block.instructions) {
    if (MEMORY.has(inst.opcode)) {
      if (inst.atomic || inst.flags & InstFlag.Volatile) return undefined;
      ops.push(inst);
    } else if (inst.opcode === 'call') {
      const callee = inst.operands[0];
      const name = callee?.kind === 'function' ? callee.name : '';
      // Only intrinsics that inform the optimizer and pure math (matched structurally below).
      if (!/^llvm\.(dbg\.|fmuladd\.|fma\.|sqrt\.|fabs\.|exp\.|log\.|pow\.|sin\.|cos\.|floor\.|ceil\.|minnum\.|maxnum\.)/.test(name)) return undefined;
    } else if (inst.opcode === 'fence' || inst.opcode === 'atomicrmw' || inst.opcode === 'cmpxchg' || inst.opcode === 'invoke') return undefined;
  }
  return ops;
}

/** `s` without no-wrap flags: the flags are facts about the values, not part of them. */
function withoutFlags(se: ScalarEvolution, s: Scev): Scev {
  const ctx = se.ctx;
  return ctx.rewrite(s, (e) => {
    if (e.kind === ScevKind.Add) return ctx.add(e.operands.map((o) => withoutFlags(se, o)), NoWrap.None);
    if (e.kind === ScevKind.Mul) return ctx.mul(e.operands.map((o) => withoutFlags(se, o)), NoWrap.None);
    if (e.kind === ScevKind.AddRec) return ctx.addRec(e.operands.map((o) => withoutFlags(se, o)), e.loop, NoWrap.None);
    return undefined;
  });
}

/** Affine recurrences {start,+,step}<loop> of the block's integer PHIs. */
function headerRecurrences(se: ScalarEvolution, block: BasicBlock, loop: Loop): { phi: Instruction; start: Scev; step: bigint }[] | undefined {
  const out: { phi: Instruction; start: Scev; step: bigint }[] = [];
  for (const phi of block.instructions) {
    if (phi.opcode !== 'phi') break;
    if (phi.type.kind !== 'int') return undefined;
    const s = se.getScev(phi);
    if (s.kind !== ScevKind.AddRec || s.loop !== loop || s.operands.length !== 2 || s.operands[1]!.kind !== ScevKind.Constant) return undefined;
    out.push({ phi, start: s.operands[0]!, step: s.operands[1]!.value });
  }
  return out;
}

/** How the remainder's body reads its index. */
interface RemainderShape {
  readonly block: BasicBlock;
  /** Candidates for its first index S; for a block, the PHI that carries it. */
  readonly starts: readonly { readonly start: Scev; readonly exitIndex?: Instruction }[];
  /** The closed forms of the remainder's values at index `x` (first index `start`); undefined where they are not its own. */
  at(x: Scev, start: Scev): (v: Value) => Scev | undefined;
}

/** A remainder loop: its header recurrences of step 1 start at S; index x is iteration x - S. */
function loopRemainder(se: ScalarEvolution, r: ScopStatementModel): RemainderShape | undefined {
  const lr = r.loops[r.loops.length - 1]!.loop;
  const rec = headerRecurrences(se, r.block, lr);
  if (!rec) return undefined;
  return {
    block: r.block,
    starts: [...new Set(rec.filter((x) => x.step === 1n).map((x) => x.start))].map((start) => ({ start })),
    at: (x, start) => {
      const iteration = se.ctx.minus(x, start);
      return (v) => {
        const s = se.getScev(v);
        if (s.kind === ScevKind.CouldNotCompute) return undefined;
        const e = withoutFlags(se, se.ctx.atIteration(s, lr, iteration));
        return e.kind === ScevKind.CouldNotCompute || mentions(e, lr) ? undefined : e;
      };
    },
  };
}

/**
 * A remainder block after the unrolled loop: it reads the loop's exit index S from one integer
 * PHI (of the block between, which merges the loop's exit with its bypass) and otherwise only
 * values computed before the loop (which do not depend on S); index x is the block's closed
 * forms with x for the PHI's.
 */
function blockRemainder(se: ScalarEvolution, u: ScopStatementModel, r: ScopStatementModel): RemainderShape | undefined {
  const lu = u.loops[u.loops.length - 1]!.loop;
  const indices = new Set<Instruction>();
  const before: Value[] = [];
  for (const inst of r.block.instructions) {
    for (const v of inst.operands) {
      if (v.kind !== 'instruction' || v.parent === r.block) continue;
      if (v.parent !== undefined && se.dt.dominates(v.parent, lu.header) && !lu.containsBlock(v.parent)) before.push(v);
      else if (v.opcode === 'phi' && v.type.kind === 'int' && v.type.bits === 64 && v.parent !== undefined && !lu.containsBlock(v.parent)) indices.add(v);
      else return undefined;
    }
  }
  if (indices.size !== 1) return undefined;
  const [exitIndex] = [...indices] as [Instruction];
  const start = se.getScev(exitIndex);
  if (start.kind === ScevKind.CouldNotCompute || start.kind === ScevKind.Unknown) return undefined;
  // Their closed forms as they are, before the index is replaced.
  for (const v of before) if (se.isScevable(v)) se.getScev(v);
  const values = r.block.instructions.filter((i) => se.isScevable(i));
  return {
    block: r.block,
    starts: [{ start, exitIndex }],
    at: (x) => {
      const at = se.closedFormsWith(exitIndex, x, values);
      return (v) => {
        const s = v === exitIndex ? x : at.get(v) ?? se.getScev(v);
        return s.kind === ScevKind.CouldNotCompute || mentions(s, lu) ? undefined : withoutFlags(se, s);
      };
    },
  };
}

function tryPair(model: ScopModel, se: ScalarEvolution, u: ScopStatementModel, r: ScopStatementModel, shape: RemainderShape | undefined): RerolledLoop | undefined {
  if (!shape) return undefined;
  const lu = u.loops[u.loops.length - 1]!.loop;
  const mu = memoryOperations(u.block);
  const mr = memoryOperations(r.block);
  if (!mu || !mr || mr.length === 0 || mu.length % mr.length !== 0) return undefined;
  const factor = mu.length / mr.length;
  if (factor < 2) return undefined;
  if (!escapesOnlyAsIntegers(u.block) || !escapesOnlyAsIntegers(r.block) || !contiguous(se, mu.slice(0, mr.length), lu, factor) || storesToOneAddress(se, mu.slice(0, mr.length), lu)) return undefined;
  const recU = headerRecurrences(se, u.block, lu);
  if (!recU) return undefined;
  const starts = [...new Set(recU.filter((x) => x.step === BigInt(factor)).map((x) => x.start))];
  const block = shape.starts[0]?.exitIndex !== undefined;
  for (const a of starts) {
    for (const s of shape.starts) {
      if (!copiesMatch(se, { lu, factor, a, s: s.start }, shape, mu, mr)) continue;
      const offset = se.ctx.minus(s.start, a);
      const checked = rolledDomain(model, u, r, factor, offset, block);
      if (!checked) continue;
      const statement = block ? u : r;
      return {
        unrolled: u, remainder: r, statement, loop: statement.loops[statement.loops.length - 1]!, factor, offset, start: a, exitIndex: s.exitIndex,
        domain: checked.domain, parallel: checked.parallel(mu, mr),
      };
    }
  }
  return undefined;
}

/**
 * Every access of the rolled body is to consecutive elements (or the same one) from one index
 * to the next: in the unrolled loop's first copy, a step of U elements per iteration. Only then
 * does the loop vectorizer make wide loads and stores of the rolled loop; a strided access
 * (syrk's A[j][k] along j) leaves it scalar, and the unrolled copies, which the SLP vectorizer
 * packs, run fewer instructions.
 */
function contiguous(se: ScalarEvolution, firstCopy: readonly Instruction[], lu: Loop, factor: number): boolean {
  return firstCopy.every((op) => {
    const pointer = op.opcode === 'load' ? op.operands[0]! : op.operands[1]!;
    const accessed = op.opcode === 'load' ? op.type : op.operands[0]!.type;
    const s = se.getScev(pointer);
    if (s.kind !== ScevKind.AddRec || s.loop !== lu) return se.ctx.isLoopInvariant(s, lu);
    const step = s.operands[1];
    const bytes = BigInt(factor * allocSize(accessed));
    return s.operands.length === 2 && step?.kind === ScevKind.Constant && (step.value === bytes || step.value === -bytes);
  });
}

/**
 * A store to the same address in every iteration (a sum kept in memory, bicg's q[i] += ...):
 * the loop vectorizer leaves such a loop scalar, while the SLP vectorizer packs the copies'
 * other accesses, and the unrolled copies run fewer instructions.
 */
function storesToOneAddress(se: ScalarEvolution, firstCopy: readonly Instruction[], lu: Loop): boolean {
  return firstCopy.some((op) => op.opcode === 'store' && se.ctx.isLoopInvariant(se.getScev(op.operands[1]!), lu));
}

/** Values of the block used elsewhere are integers (loop control, rebuilt from scalar evolution where needed). */
function escapesOnlyAsIntegers(block: BasicBlock): boolean {
  return block.instructions.every((i) => i.type.kind === 'int' || i.type.kind === 'void' || i.uses.every((use) => (use.user as Instruction).parent === block));
}

interface PairShape {
  readonly lu: Loop;
  readonly factor: number;
  /** The unrolled loop's first index and the remainder's. */
  readonly a: Scev;
  readonly s: Scev;
}

/** Every copy c of the unrolled body computes what the remainder's body computes at index a + U*t + c. */
function copiesMatch(se: ScalarEvolution, p: PairShape, remainder: RemainderShape, mu: readonly Instruction[], mr: readonly Instruction[]): boolean {
  const ctx = se.ctx;
  const m = mr.length;
  const t = ctx.unknown({ rerollIteration: true }, 'reroll.t', 64, -2);
  for (let c = 0; c < p.factor; c++) {
    const remainderAt = remainder.at(ctx.add([p.a, ctx.mul([ctx.constant(p.factor, 64), t]), ctx.constant(c, 64)]), p.s);
    const sameValue = (xr: Value, xu: Value): boolean => {
      const su = se.getScev(xu);
      if (su.kind === ScevKind.CouldNotCompute) return false;
      const atR = remainderAt(xr);
      const atU = withoutFlags(se, ctx.atIteration(su, p.lu, t));
      return atR !== undefined && atR === atU && atU.kind !== ScevKind.CouldNotCompute && !mentions(atU, p.lu);
    };
    const matched = new Map<Value, Value>();
    const match = (xr: Value, xu: Value): boolean => {
      const known = matched.get(xr);
      if (known) return known === xu;
      const inBodies = xr.kind === 'instruction' && xr.parent === remainder.block && xr.opcode !== 'phi' && xu.kind === 'instruction' && xu.parent === p.lu.header && xu.opcode !== 'phi';
      const structurally = (): boolean => inBodies && sameOperation(xr as Instruction, xu as Instruction) && (xr as Instruction).operands.every((o, k) => match(o, (xu as Instruction).operands[k]!));
      let ok: boolean;
      if (xr === xu && !(xr.kind === 'instruction' && (xr.parent === remainder.block || xr.parent === p.lu.header))) ok = true;
      else if (isConstant(xr) && !se.isScevable(xr)) ok = constantsEqual(xr, xu);
      // Integers and pointers: by value (scalar evolution), else (an integer loaded from memory) by the operation.
      else if (se.isScevable(xr) && se.isScevable(xu) && typesEqual(xr.type, xu.type)) ok = sameValue(xr, xu) || structurally();
      else ok = structurally();
      if (ok) matched.set(xr, xu);
      return ok;
    };
    for (let k = 0; k < m; k++) {
      const xr = mr[k]!;
      const xu = mu[c * m + k]!;
      if (!sameOperation(xr, xu) || !xr.operands.every((o, j) => match(o, xu.operands[j]!))) return false;
    }
  }
  return true;
}

function mentions(s: Scev, loop: ScevLoop): boolean {
  let found = false;
  const visit = (e: Scev): void => {
    if (found) return;
    if (e.kind === ScevKind.AddRec && e.loop === loop) found = true;
    else if (e.kind === ScevKind.AddRec || e.kind === ScevKind.Add || e.kind === ScevKind.Mul || e.kind === ScevKind.SMax || e.kind === ScevKind.SMin || e.kind === ScevKind.UMax || e.kind === ScevKind.UMin) e.operands.forEach(visit);
    else if (e.kind === ScevKind.UDiv) [e.lhs, e.rhs].forEach(visit);
    else if (e.kind === ScevKind.Truncate || e.kind === ScevKind.ZeroExtend || e.kind === ScevKind.SignExtend) visit(e.operand);
  };
  visit(s);
  return found;
}

/** Same operation on operands of the same types: opcode, type, flags, predicate, alignment, call details. */
function sameOperation(a: Instruction, b: Instruction): boolean {
  if (a.opcode !== b.opcode || a.operands.length !== b.operands.length || !typesEqual(a.type, b.type)) return false;
  if ((a.flags & ~IGNORED_FLAGS) !== (b.flags & ~IGNORED_FLAGS) || a.fastMath !== b.fastMath || a.predicate !== b.predicate || a.align !== b.align) return false;
  if ((a.sourceElementType === undefined) !== (b.sourceElementType === undefined)) return false;
  if (a.sourceElementType && !typesEqual(a.sourceElementType, b.sourceElementType!)) return false;
  if (JSON.stringify(a.indices) !== JSON.stringify(b.indices)) return false;
  if (a.call || b.call) {
    if (!a.call || !b.call || a.call.fnAttrs !== b.call.fnAttrs || a.call.returnAttrs !== b.call.returnAttrs || a.call.argAttrs.join('|') !== b.call.argAttrs.join('|')) return false;
  }
  return a.operands.every((o, k) => typesEqual(o.type, b.operands[k]!.type));
}

/**
 * `e` as an affine function on `space` (a statement's, whose first dimensions are the counters of
 * `outer`, the loops around the pair: a triangular loop's trip count) over the model's
 * parameters, with the conditions under which it is exact pushed to `conditions` (sets in
 * `space`).
 */
function islAff(model: ScopModel, e: Scev, conditions: IslSet[], outer: readonly ScopLoop[], space: Space): Aff | undefined {
  const aff = (x: Scev, c: IslSet[]) => islAff(model, x, c, outer, space);
  const ctx = model.ctx;
  const constant = (v: bigint): Aff => Aff.zeroOnDomainSpace(space).addConstantVal(ctx.val(v));
  switch (e.kind) {
    case ScevKind.Constant:
      return constant(e.value);
    case ScevKind.Unknown: {
      const p = model.parameters.find((x) => x.expression === e);
      return p && space.paramAffOnDomainId(ctx.id(p.name));
    }
    case ScevKind.SignExtend:
    case ScevKind.ZeroExtend: {
      // A parameter is its signed value; arithmetic on narrower integers (`zext i32 (n - 1)`) is
      // its value modulo 2^w, which the cast keeps exactly when it lies in the cast's range.
      const w = BigInt(e.operand.bits);
      const signed = e.kind === ScevKind.SignExtend;
      if (e.operand.kind === ScevKind.Unknown || !modular(e.operand)) {
        const inner = e.operand.kind === ScevKind.Unknown ? aff(e.operand, conditions) : undefined;
        if (inner !== undefined && !signed) conditions.push(inner.geSet(constant(0n)));
        return inner;
      }
      const inner = aff(e.operand, conditions);
      if (inner !== undefined) {
        const [min, max] = signed ? [-(1n << (w - 1n)), (1n << (w - 1n)) - 1n] : [0n, (1n << w) - 1n];
        conditions.push(inner.geSet(constant(min)).intersect(inner.leSet(constant(max))));
      }
      return inner;
    }
    case ScevKind.Add: {
      const parts = e.operands.map((o) => aff(o, conditions));
      return parts.every((x) => x !== undefined) ? parts.reduce((x, y) => x!.add(y!)) : undefined;
    }
    case ScevKind.Mul: {
      if (e.operands.length !== 2 || e.operands[0]!.kind !== ScevKind.Constant) return undefined;
      return aff(e.operands[1]!, conditions)?.scaleVal(ctx.val(e.operands[0]!.value));
    }
    case ScevKind.UDiv: {
      if (e.rhs.kind !== ScevKind.Constant || e.rhs.value <= 0n) return undefined;
      const inner = aff(e.lhs, conditions);
      if (inner === undefined) return undefined;
      conditions.push(inner.geSet(constant(0n)));
      return inner.scaleDownVal(ctx.val(e.rhs.value)).floor();
    }
    case ScevKind.AddRec: {
      const k = outer.findIndex((l) => l.loop === e.loop);
      if (k < 0 || e.operands.length !== 2 || e.operands[1]!.kind !== ScevKind.Constant) return undefined;
      const start = aff(e.operands[0]!, conditions);
      return start?.add(space.identityMultiAffOnDomain().getAt(k).scaleVal(ctx.val(e.operands[1]!.value)));
    }
    default:
      return undefined;
  }
}

/** `e` is built by addition and multiplication alone: its w-bit value is its exact value modulo 2^w. */
function modular(e: Scev): boolean {
  switch (e.kind) {
    case ScevKind.Constant:
    case ScevKind.Unknown:
      return true;
    case ScevKind.Add:
    case ScevKind.Mul:
    case ScevKind.AddRec:
      return e.operands.every(modular);
    default:
      return false;
  }
}

function rangeName(m: IslMap): string | null {
  return m.range().getTupleName();
}

/**
 * [params] -> { Stmt[o, x] }: the copies' instances at x = U*t + c and the remainder's at
 * x = K + r (a remainder block's at x = K), when they are disjoint, in that order, and fill
 * 0 <= x < n without a gap. The rolled statement is named after the remainder loop's, or after
 * the unrolled loop's when the remainder is a block.
 */
function rolledDomain(model: ScopModel, u: ScopStatementModel, r: ScopStatementModel, factor: number, offset: Scev, block: boolean): { domain: IslSet; parallel(mu: readonly Instruction[], mr: readonly Instruction[]): boolean } | undefined {
  const d = u.loops.length;
  const ctx: Ctx = model.ctx;
  const target = block ? u : r;
  const name = ctx.id(target.name);
  // K over the remainder's instances (its first d - 1 counters are the outer loops')
  const conditions: IslSet[] = [];
  const k = islAff(model, offset, conditions, u.loops.slice(0, -1), r.domain.getSpace());
  if (k === undefined) return undefined;
  // The remainder runs only where K is exact (the context: the guards around the SCoP).
  const exact = conditions.reduce((x, y) => x.intersect(y), IslSet.universe(r.domain.getSpace()));
  if (conditions.length > 0 && !r.domain.intersectParams(model.context).isSubset(exact)) return undefined;
  // { Stmt[o, x] -> [o, x] } on the rolled statement's instances
  const xs = target.domain.getSpace().identityMultiAffOnDomain();
  const last = (m: MultiAff): Aff => m.getAt(m.size() - 1);
  const onto = (m: MultiAff): IslMap => m.setRangeTupleId(name).asMap();
  // { Stmt_u[o, t] -> Stmt[o, U t + c] } for each copy c
  const ts = u.domain.getSpace().identityMultiAffOnDomain();
  const copies = Array.from({ length: factor }, (_, c) => onto(ts.setAt(d - 1, last(ts).scaleVal(ctx.val(factor)).addConstantVal(ctx.val(c)))));
  // { Stmt_r[o, r] -> Stmt[o, K + r] }, or { Stmt_r[o] -> Stmt[o, K] }
  const rs = r.domain.getSpace().identityMultiAffOnDomain();
  const shift = onto(block ? rs.flatRangeProduct(MultiAff.fromAff(k)) : rs.setAt(d - 1, k.add(last(rs))));
  // Under the context: where the SCoP runs.
  const fromCopies = copies.map((m) => u.domain.apply(m)).reduce((x, y) => x.union(y)).intersectParams(model.context);
  const fromRemainder = r.domain.apply(shift).intersectParams(model.context);
  if (!fromCopies.isDisjoint(fromRemainder)) return undefined;
  // { Stmt[o, x] -> Stmt[o, y] : y > x }
  const inner = MultiPwAff.fromMultiAff(MultiAff.fromAff(last(xs)));
  const pairs = IslMap.universe(target.domain.getSpace().mapFromSet());
  const outer = xs.getList().toArray().slice(0, -1).map((x) => MultiAff.fromAff(x));
  const sameOuter = outer.length === 0 ? pairs : pairs.eqAtMultiPwAff(MultiPwAff.fromMultiAff(outer.reduce((x, y) => x.flatRangeProduct(y))));
  const later = sameOuter.lexLtAtMultiPwAff(inner);
  // No copy instance after a remainder instance.
  if (!fromCopies.intersect(fromRemainder.apply(later)).isEmpty()) return undefined;
  const domain = fromCopies.union(fromRemainder).coalesce();
  const before = domain.apply(later);
  const after = domain.apply(later.reverse());
  if (!before.intersect(after).subtract(domain).isEmpty()) return undefined;
  const zero = Aff.zeroOnDomainSpace(target.domain.getSpace());
  if (!domain.isSubset(last(xs).geSet(zero))) return undefined;
  if (!domain.apply(onto(xs.setAt(d - 1, zero))).isSubset(domain)) return undefined;
  return {
    domain,
    parallel: (mu, mr) => {
      // { Stmt[o, x] -> Element[...] } of each memory operation of the rolled body
      const rolled = mr.map((inst, j) => {
        const rel = (st: ScopStatementModel, op: Instruction): IslMap | undefined => st.accesses.find((a) => a.instruction === op)?.relation.intersectDomain(st.domain);
        let acc = rel(r, inst)?.applyDomain(shift);
        for (let c = 0; c < factor && acc; c++) {
          const part = rel(u, mu[c * mr.length + j]!);
          acc = part && rangeName(part) === rangeName(acc) ? acc.union(part.applyDomain(copies[c]!)) : undefined;
        }
        return acc ? { write: inst.opcode === 'store', acc } : undefined;
      });
      if (rolled.some((x) => x === undefined)) return false;
      // { Stmt[o, x] -> Stmt[o, y] : x != y }
      const other = later.union(later.reverse());
      for (const w of rolled) {
        if (!w!.write) continue;
        for (const a of rolled) {
          if (rangeName(a!.acc) !== rangeName(w!.acc)) continue;
          if (!w!.acc.applyRange(a!.acc.reverse()).intersect(other).isEmpty()) return false;
        }
      }
      return true;
    },
  };
}

/**
 * The values standing for the remainder's index at rolled index `x` (an i64 of the fast path):
 * each header recurrence of a remainder loop at iteration a + x - S, or a remainder block's
 * exit-index PHI as a + x.
 */
export function rolledHeaderValues(plan: RerolledLoop, se: ScalarEvolution, b: IrBuilder, x: Value, outer: ReadonlyMap<ScevLoop, Value>, isAvailable: (v: Value) => boolean): Map<Value, Value> {
  const ctx = se.ctx;
  const expander = new ScevExpander(b, { iterationOf: (l) => outer.get(l), isAvailable: (v) => v === x || isAvailable(v) });
  if (plan.exitIndex) return new Map([[plan.exitIndex, expander.wrapped(ctx.add([plan.start, se.unknownFor(x)]))]]);
  const lr = plan.remainder.loops[plan.remainder.loops.length - 1]!.loop;
  const iteration = ctx.minus(se.unknownFor(x), plan.offset);
  const out = new Map<Value, Value>();
  for (const phi of plan.remainder.block.instructions) {
    if (phi.opcode !== 'phi') break;
    out.set(phi, expander.wrapped(ctx.atIteration(se.getScev(phi), lr, iteration)));
  }
  return out;
}

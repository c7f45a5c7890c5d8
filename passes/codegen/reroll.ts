// Re-rolling loops clang's -O3 already runtime-unrolled, for the fast path only.
//
// The bare pipe hands us -O3 IR whose innermost loops the front end unrolled by U with a
// remainder loop after them:
//
//   for (t = 0; t < trip / U; t++) { body(a + U*t + 0); ...; body(a + U*t + U-1); }   // Stmt_u[o, t]
//   for (r = 0; r < trip % U; r++) body(S + r);                                        // Stmt_r[o, r]
//
// with S = a + U * (trip / U) (the unroll preheader's `unroll_iter`, the remainder's `xtraiter`).
// Generated as they are, the U copies become stride-U accesses the loop vectorizer handles
// poorly. When the copies are exactly the remainder's body at the indices a + U*t + c, the
// fast path runs instead one statement, the remainder's, over the whole index range:
//
//   for (x = 0; x < trip; x++) body(a + x);                                            // Stmt_r[o, x]
//
// The slow path (the original code) is untouched. What makes this exact (else the pair keeps
// its unrolled form):
//   - both loops are innermost single-block loops, the statements' blocks, around the same
//     outer loops, with nothing scheduled between them, and only array accesses (no scalars);
//   - the memory operations of copy c are, in order, those of the remainder's body (U * m of
//     them against m): same opcodes, types and flags, operands matched recursively; integer
//     and pointer operands are compared by scalar evolution, the copy's at iteration T against
//     the remainder's at iteration a + U*T + c - S, as canonical expressions (equal for every T).
//     The rolled code therefore performs the same memory operations in the same order;
//   - the rolled body's accesses are to consecutive elements from one index to the next (else
//     the loop vectorizer leaves the rolled loop scalar, and the SLP-packed copies are faster);
//   - with K = S - a in isl, the copies' instances { [o, U*t + c] } and the remainder's
//     { [o, K + r] } are disjoint, the remainder's come after the copies', and together they
//     are exactly { [o, x] : 0 <= x < n(o) } for some n: no index twice, none skipped.
// The rolled loop is marked parallel only when no two of its iterations touch the same element
// with a write (from the accesses of both statements mapped onto x).
import type { Ctx, Map as IslMap, Set as IslSet } from 'isl-wasm';
import { constantsEqual, InstFlag, isConstant, typesEqual, type BasicBlock, type Instruction, type IrBuilder, type Value } from '../../ir';
import type { Loop } from '../analysis/loops';
import { allocSize, type ScalarEvolution } from '../analysis/scalar-evolution';
import { NoWrap, ScevKind, type Scev, type ScevLoop } from '../analysis/scev';
import type { ScopLoop } from '../analysis/scop-detection-types';
import type { ScopModel, ScopStatementModel } from '../../polyhedral/model';
import { ScevExpander } from './scev-expander';

/** One unrolled loop and its remainder, generated as the remainder's statement over all indices. */
export interface RerolledLoop {
  readonly unrolled: ScopStatementModel;
  readonly remainder: ScopStatementModel;
  readonly factor: number;
  /** The remainder's first index minus the unrolled loop's: U * (trip / U). */
  readonly offset: Scev;
  /** The first index of the loop, a. */
  readonly start: Scev;
  /** [params] -> { Stmt_r[o..., x] : 0 <= x < trip }: the rolled statement's instances (x = index - a). */
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
      if (r === u || used.has(r) || excluded(r) || !isPlainLoopBody(r) || !sameOuterLoops(u, r)) continue;
      if (!adjacent(model, u, r)) continue;
      const plan = tryPair(model, se, u, r);
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
  if (l === undefined || l.header !== st.block || l.blocks.length !== 1) return false;
  return st.accesses.every((a) => {
    if (a.array.kind === 'array') return a.scalar === undefined;
    const v = a.scalar?.value;
    return a.kind === 'read' && a.array.kind === 'value' && v !== undefined && !(v.kind === 'instruction' && v.parent === st.block);
  });
}

/** The schedule's output tuple (`[1, i0, 2, i1, 0, i2, 0]` → its entries), or undefined. */
function scheduleTuple(st: ScopStatementModel): string[] | undefined {
  const m = /->\s*\[([^\]]*)\]/.exec(st.schedule.toStr());
  return m ? m[1]!.split(',').map((x) => x.trim()) : undefined;
}

/**
 * `r` comes right after `u` inside their outer loops: no statement of those loops is scheduled
 * between them (generating `u`'s instances at `r`'s place must not move them past another).
 */
function adjacent(model: ScopModel, u: ScopStatementModel, r: ScopStatementModel): boolean {
  const d = u.loops.length;
  const at = 2 * (d - 1);
  const tu = scheduleTuple(u);
  const tr = scheduleTuple(r);
  if (!tu || !tr || tu.length <= at || tr.length <= at) return false;
  const pu = Number(tu[at]);
  const pr = Number(tr[at]);
  if (!Number.isInteger(pu) || !Number.isInteger(pr) || pr <= pu || tu.slice(0, at).join() !== tr.slice(0, at).join()) return false;
  for (const x of model.statements) {
    if (x === u || x === r || x.loops.length < d - 1 || !x.loops.slice(0, d - 1).every((l, k) => l === u.loops[k])) continue;
    const tx = scheduleTuple(x);
    if (!tx || tx.length <= at) return false;
    if (tx.slice(0, at).join() !== tu.slice(0, at).join()) continue;
    const px = Number(tx[at]);
    if (!Number.isInteger(px) || (px > pu && px < pr)) return false;
  }
  return true;
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

function tryPair(model: ScopModel, se: ScalarEvolution, u: ScopStatementModel, r: ScopStatementModel): RerolledLoop | undefined {
  const lu = u.loops[u.loops.length - 1]!.loop;
  const lr = r.loops[r.loops.length - 1]!.loop;
  const mu = memoryOperations(u.block);
  const mr = memoryOperations(r.block);
  if (!mu || !mr || mr.length === 0 || mu.length % mr.length !== 0) return undefined;
  const factor = mu.length / mr.length;
  if (factor < 2) return undefined;
  if (!escapesOnlyAsIntegers(u.block) || !escapesOnlyAsIntegers(r.block) || !contiguous(se, mr, lr)) return undefined;
  const recU = headerRecurrences(se, u.block, lu);
  const recR = headerRecurrences(se, r.block, lr);
  if (!recU || !recR) return undefined;
  const starts = [...new Set(recU.filter((x) => x.step === BigInt(factor)).map((x) => x.start))];
  const remainderStarts = [...new Set(recR.filter((x) => x.step === 1n).map((x) => x.start))];
  for (const a of starts) {
    for (const s of remainderStarts) {
      if (!copiesMatch(se, { lu, lr, factor, a, s }, mu, mr)) continue;
      const offset = se.ctx.minus(s, a);
      const checked = rolledDomain(model, u, r, factor, offset);
      if (checked) return { unrolled: u, remainder: r, factor, offset, start: a, domain: checked.domain, parallel: checked.parallel(mu, mr) };
    }
  }
  return undefined;
}

/**
 * Every access of the rolled body is to consecutive elements (or the same one) from one index
 * to the next. Only then does the loop vectorizer make wide loads and stores of the rolled loop;
 * a strided access (syrk's A[j][k] along j) leaves it scalar, and the unrolled copies, which the
 * SLP vectorizer packs, ran fewer instructions (callgrind, syrk 200x180: 11.9M unrolled, 15.5M rolled).
 */
function contiguous(se: ScalarEvolution, mr: readonly Instruction[], lr: Loop): boolean {
  return mr.every((op) => {
    const pointer = op.opcode === 'load' ? op.operands[0]! : op.operands[1]!;
    const accessed = op.opcode === 'load' ? op.type : op.operands[0]!.type;
    const s = se.getScev(pointer);
    if (s.kind !== ScevKind.AddRec || s.loop !== lr) return se.ctx.isLoopInvariant(s, lr);
    const step = s.operands[1];
    return s.operands.length === 2 && step?.kind === ScevKind.Constant && (step.value === BigInt(allocSize(accessed)) || step.value === -BigInt(allocSize(accessed)));
  });
}

/** Values of the block used elsewhere are integers (loop control, rebuilt from scalar evolution where needed). */
function escapesOnlyAsIntegers(block: BasicBlock): boolean {
  return block.instructions.every((i) => i.type.kind === 'int' || i.type.kind === 'void' || i.uses.every((use) => (use.user as Instruction).parent === block));
}

interface PairShape {
  readonly lu: Loop;
  readonly lr: Loop;
  readonly factor: number;
  /** The unrolled loop's first index and the remainder's. */
  readonly a: Scev;
  readonly s: Scev;
}

/** Every copy c of the unrolled body computes what the remainder's body computes at index a + U*t + c. */
function copiesMatch(se: ScalarEvolution, p: PairShape, mu: readonly Instruction[], mr: readonly Instruction[]): boolean {
  const ctx = se.ctx;
  const m = mr.length;
  const t = ctx.unknown({ rerollIteration: true }, 'reroll.t', 64, -2);
  for (let c = 0; c < p.factor; c++) {
    // Remainder iteration r with S + r = a + U*t + c.
    const r = ctx.add([p.a, ctx.mul([ctx.constant(p.factor, 64), t]), ctx.constant(c, 64), ctx.negate(p.s)]);
    const sameValue = (xr: Value, xu: Value): boolean => {
      const sr = se.getScev(xr);
      const su = se.getScev(xu);
      if (sr.kind === ScevKind.CouldNotCompute || su.kind === ScevKind.CouldNotCompute) return false;
      const atR = withoutFlags(se, ctx.atIteration(sr, p.lr, r));
      const atU = withoutFlags(se, ctx.atIteration(su, p.lu, t));
      return atR === atU && atR.kind !== ScevKind.CouldNotCompute && !mentions(atR, p.lr) && !mentions(atU, p.lu);
    };
    const matched = new Map<Value, Value>();
    const match = (xr: Value, xu: Value): boolean => {
      const known = matched.get(xr);
      if (known) return known === xu;
      const inBodies = xr.kind === 'instruction' && xr.parent === p.lr.header && xr.opcode !== 'phi' && xu.kind === 'instruction' && xu.parent === p.lu.header && xu.opcode !== 'phi';
      const structurally = (): boolean => inBodies && sameOperation(xr as Instruction, xu as Instruction) && (xr as Instruction).operands.every((o, k) => match(o, (xu as Instruction).operands[k]!));
      let ok: boolean;
      if (xr === xu && !(xr.kind === 'instruction' && (xr.parent === p.lr.header || xr.parent === p.lu.header))) ok = true;
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
 * `e` as isl text over the model's parameters and the counters i0, i1, ... of `outer` (the loops
 * around the pair: a triangular loop's trip count), with the conditions (`… >= 0`) under which
 * the text is exact.
 */
function islText(model: ScopModel, e: Scev, conditions: string[], outer: readonly ScopLoop[]): string | undefined {
  const islText_ = (x: Scev, c: string[]) => islText(model, x, c, outer);
  switch (e.kind) {
    case ScevKind.Constant:
      return e.value.toString();
    case ScevKind.Unknown: {
      const p = model.parameters.find((x) => x.expression === e);
      return p?.name;
    }
    case ScevKind.SignExtend:
      return e.operand.kind === ScevKind.Unknown ? islText_(e.operand, conditions) : undefined;
    case ScevKind.ZeroExtend: {
      const inner = e.operand.kind === ScevKind.Unknown ? islText_(e.operand, conditions) : undefined;
      if (inner !== undefined) conditions.push(`${inner} >= 0`);
      return inner;
    }
    case ScevKind.Add: {
      const parts = e.operands.map((o) => islText_(o, conditions));
      return parts.every((x) => x !== undefined) ? `(${parts.join(' + ')})` : undefined;
    }
    case ScevKind.Mul: {
      if (e.operands.length !== 2 || e.operands[0]!.kind !== ScevKind.Constant) return undefined;
      const inner = islText_(e.operands[1]!, conditions);
      return inner === undefined ? undefined : `(${e.operands[0]!.value} * ${inner})`;
    }
    case ScevKind.UDiv: {
      if (e.rhs.kind !== ScevKind.Constant || e.rhs.value <= 0n) return undefined;
      const inner = islText_(e.lhs, conditions);
      if (inner === undefined) return undefined;
      conditions.push(`${inner} >= 0`);
      return `floor((${inner})/${e.rhs.value})`;
    }
    case ScevKind.AddRec: {
      const k = outer.findIndex((l) => l.loop === e.loop);
      if (k < 0 || e.operands.length !== 2 || e.operands[1]!.kind !== ScevKind.Constant) return undefined;
      const start = islText_(e.operands[0]!, conditions);
      return start === undefined ? undefined : `(${start} + ${e.operands[1]!.value} * i${k})`;
    }
    default:
      return undefined;
  }
}

function rangeName(m: IslMap): string | null {
  return m.range().getTupleName();
}

function dims(n: number, last: string): string {
  return [...Array.from({ length: n - 1 }, (_, k) => `i${k}`), last].join(', ');
}

/**
 * [params] -> { Stmt_r[o, x] }: the copies' instances at x = U*t + c and the remainder's at
 * x = K + r, when they are disjoint, in that order, and fill 0 <= x < n without a gap.
 */
function rolledDomain(model: ScopModel, u: ScopStatementModel, r: ScopStatementModel, factor: number, offset: Scev): { domain: IslSet; parallel(mu: readonly Instruction[], mr: readonly Instruction[]): boolean } | undefined {
  const conditions: string[] = [];
  const k = islText(model, offset, conditions, r.loops.slice(0, -1));
  if (k === undefined) return undefined;
  const ctx: Ctx = model.ctx;
  const p = `[${model.parameters.map((x) => x.name).join(', ')}] -> `;
  const d = r.loops.length;
  // The remainder runs only where its offset's text is exact (the context: the guards around the SCoP).
  if (conditions.length > 0 && !r.domain.intersectParams(model.context).isSubset(ctx.set(`${p}{ ${r.name}[${dims(d, 'r')}] : ${conditions.join(' and ')} }`))) return undefined;
  const target = `${r.name}[${dims(d, 'x')}]`;
  // { Stmt_u[o, t] -> Stmt_r[o, U t + c] } for each copy c
  const copies = Array.from({ length: factor }, (_, c) => ctx.map(`${p}{ ${u.name}[${dims(d, 't')}] -> ${r.name}[${dims(d, `${factor}*t + ${c}`)}] }`));
  // { Stmt_r[o, r] -> Stmt_r[o, K + r] }
  const shift = ctx.map(`${p}{ ${r.name}[${dims(d, 'r')}] -> ${r.name}[${dims(d, `${k} + r`)}] }`);
  // Under the context: where the SCoP runs.
  const fromCopies = copies.map((m) => u.domain.apply(m)).reduce((x, y) => x.union(y)).intersectParams(model.context);
  const fromRemainder = r.domain.apply(shift).intersectParams(model.context);
  if (!fromCopies.isDisjoint(fromRemainder)) return undefined;
  // { Stmt_r[o, x] -> Stmt_r[o, y] : y > x }
  const later = ctx.map(`${p}{ ${target} -> ${r.name}[${dims(d, 'y')}] : y > x }`);
  // No copy instance after a remainder instance.
  if (!fromCopies.intersect(fromRemainder.apply(later)).isEmpty()) return undefined;
  const domain = fromCopies.union(fromRemainder).coalesce();
  const before = domain.apply(later);
  const after = domain.apply(later.reverse());
  if (!before.intersect(after).subtract(domain).isEmpty()) return undefined;
  if (!domain.isSubset(ctx.set(`${p}{ ${target} : x >= 0 }`))) return undefined;
  if (!domain.apply(ctx.map(`${p}{ ${target} -> ${r.name}[${dims(d, '0')}] }`)).isSubset(domain)) return undefined;
  return {
    domain,
    parallel: (mu, mr) => {
      // { Stmt_r[o, x] -> Element[...] } of each memory operation of the rolled body
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
      // { Stmt_r[o, x] -> Stmt_r[o, y] : x != y }
      const other = ctx.map(`${p}{ ${target} -> ${r.name}[${dims(d, 'y')}] : y != x }`);
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
 * The values of the remainder's header PHIs at rolled index `x` (an i64 of the fast path):
 * each recurrence of the remainder loop at iteration a + x - S.
 */
export function rolledHeaderValues(plan: RerolledLoop, se: ScalarEvolution, b: IrBuilder, x: Value, outer: ReadonlyMap<ScevLoop, Value>, isAvailable: (v: Value) => boolean): Map<Value, Value> {
  const ctx = se.ctx;
  const lr = plan.remainder.loops[plan.remainder.loops.length - 1]!.loop;
  const expander = new ScevExpander(b, { iterationOf: (l) => outer.get(l), isAvailable: (v) => v === x || isAvailable(v) });
  const iteration = ctx.minus(se.unknownFor(x), plan.offset);
  const out = new Map<Value, Value>();
  for (const phi of plan.remainder.block.instructions) {
    if (phi.opcode !== 'phi') break;
    out.set(phi, expander.wrapped(ctx.atIteration(se.getScev(phi), lr, iteration)));
  }
  return out;
}


// Array privatization for OpenMP fast paths (`--parallel`): an outermost loop that carries no
// dependence but those on arrays every iteration writes before it reads them (PolyBench's
// doitgen: `sum[p]` is set to 0, summed into and copied out again in each (r, q) iteration)
// runs on the threads, each thread with its own copy of those arrays:
//
//   for r:                               for r (threads):   sum' = r == last ? sum : own copy
//     sum[p] = 0; sum[p] += ...; A = sum   ──►                sum'[p] = 0; sum'[p] += ...; A = sum'
//
// An array X is privatized for the loop L when
//   - every read of X has its source (isl's exact dataflow in the original order, must-writes
//     only) in the same iteration of L, and no read of X sees a value from before the SCoP:
//     an iteration never needs what another one wrote, so a copy of its own serves it; the
//     fast path's schedule keeps every dependence, so the dataflow is the same in its order;
//   - every iteration of L writes the same elements of X: the last iteration, which writes
//     into X itself, leaves X as the original order does (nothing of X is written only by an
//     earlier iteration);
//   - X is one-dimensional with constant bounds of at most `maxPrivateBytes` (a stack buffer
//     per thread).
// L then must carry nothing else: no other array conflict and no scalar flow. Every iteration
// computes what it computed in the original order, on the same values: results stay bit for
// bit (nothing is reassociated).
import { type Instruction, type Value, type BasicBlock, type IrFunction, IrBuilder, arrayOf, cloneInstruction, constInt, i8, intType, setOperand } from '../ir';
import { type AstNodeTree, type Map as IslMap, MultiAff, type Set as IslSet, UnionMap } from 'isl-wasm';
import type { ScopLoop } from '../analysis/scop-detection-types';
import { predecessorMap } from '../analysis/dominators';
import { accessConflicts, carries, collectAccesses, readsFromWrites, wrapsAround, type DependenceInput } from '../polyhedral/dependences';
import type { ScopArray, ScopModel, ScopStatementModel } from '../polyhedral/model';
import { statementCalls, visitLoops, type ParallelRegion } from './ast-to-ir';

type ForNode = Extract<AstNodeTree, { kind: 'for' }>;

/** Largest copy of an array a thread keeps on its stack. */
const maxPrivateBytes = 64 << 10;

/** An array each thread of a parallel loop keeps a copy of: the elements [first, first + count). */
export interface PrivateArray {
  readonly array: ScopArray;
  readonly first: number;
  readonly count: number;
}

/** A loop that carries nothing once `arrays` are private, or why it carries something still. */
export type Privatization = { readonly arrays: readonly PrivateArray[] } | { readonly why: string };

/**
 * The outermost loops of `ast` not in `threadable` that run in parallel once some arrays are
 * private (see the head of this file), with those arrays; the others with why not. A loop
 * qualifies only where it runs the model's outermost loop itself: each statement under it
 * takes its iterator as its first counter, and it runs every statement of that loop.
 */
export function privatizedLoops(ast: AstNodeTree, model: ScopModel, threadable: ReadonlySet<AstNodeTree>): Map<ForNode, Privatization> {
  const out = new Map<ForNode, Privatization>();
  const byName = new Map(model.statements.map((s) => [s.name, s] as const));
  visitLoops(ast, (n) => {
    if (threadable.has(n)) return false;
    const it = n.iterator.kind === 'id' ? n.iterator.name : undefined;
    const under = statementCalls(n.body).map((c) => ({ call: c, st: byName.get(c.name) }));
    const first = under[0]?.st?.loops[0];
    const runsOutermost = it !== undefined && first !== undefined && under.every(({ call, st }) => st?.loops[0] === first && call.args[0]?.kind === 'id' && call.args[0].name === it);
    const names = new Set(under.map(({ call }) => call.name));
    if (runsOutermost && model.statements.filter((s) => s.loops[0] === first).every((s) => names.has(s.name))) {
      const p = privatizeFor(model, first);
      if ('arrays' in p || p.why !== noCandidate) out.set(n, p);
    }
    return false;
  });
  return out;
}

const noCandidate = 'no array written in the loop is private to its iterations';

/** The arrays whose private copies leave the outermost loop `loop` of `model` carrying nothing, or why there are none. */
export function privatizeFor(model: ScopModel, loop: ScopLoop): Privatization {
  const ctx = model.ctx;
  return ctx.scope((): Privatization => {
    const inside = model.statements.filter((s) => s.loops[0] === loop);
    const written = new Set(inside.flatMap((s) => s.accesses.filter((a) => a.kind === 'write' && a.array.kind === 'array').map((a) => a.array)));
    const arrays = [...written].flatMap((x) => {
      const p = privateArray(model, inside, x);
      return p ? [p] : [];
    });
    if (arrays.length === 0) return { why: noCandidate };
    const mine = new Set(arrays.map((p) => p.array));
    // The other arrays' conflicts and the scalars' flow: what the loop still carries.
    const others = model.statements.map((s): ScopStatementModel => ({ ...s, accesses: s.accesses.filter((a) => !mine.has(a.array)) }));
    const input: DependenceInput = { statements: model.statements, loops: model.loops, schedule: model.schedule, assumedContext: model.assumedContext };
    if (carries(ctx, input, loop, accessConflicts(others, model.schedule, false), model.assumedContext)) {
      return { why: `with ${arrays.map((p) => p.array.name).join(', ')} private, it still carries a dependence on another array` };
    }
    const scalars = readsFromWrites(model.schedule, collectAccesses(model.statements, model.schedule, (a) => a.array.kind !== 'array'));
    if (carries(ctx, input, loop, scalars.getMayDependence().intersectParams(model.assumedContext))) {
      return { why: 'it carries a scalar\'s value from one iteration to the next' };
    }
    return { arrays };
  });
}

/** `x`'s private copy for the outermost loop of `inside` (the statements of that loop), or undefined when `x` cannot have one. */
function privateArray(model: ScopModel, inside: readonly ScopStatementModel[], x: ScopArray): PrivateArray | undefined {
  if (x.sizes.length > 0 || (x.value.kind !== 'argument' && x.value.kind !== 'instruction')) return undefined;
  const mine = (a: ScopStatementModel['accesses'][number]): boolean => a.array === x;
  // Every statement touching x is in the loop, and its writes are exact.
  if (model.statements.some((s) => !inside.includes(s) && s.accesses.some(mine))) return undefined;
  if (inside.some((s) => s.accesses.some((a) => mine(a) && (wrapsAround(a.relation) || (a.kind === 'write' && a.certainty !== 'must'))))) return undefined;
  // Every write of x is a must-write (above): its reads from its writes.
  const flow = readsFromWrites(model.schedule, collectAccesses(inside, model.schedule, mine));
  // Reads of a value from before the SCoP, or from another iteration of the loop.
  if (!flow.getMayNoSource().intersectParams(model.assumedContext).isEmpty()) return undefined;
  const input: DependenceInput = { statements: model.statements, loops: model.loops, schedule: model.schedule, assumedContext: model.assumedContext };
  if (carries(model.ctx, input, inside[0]!.loops[0]!, flow.getMayDependence().intersectParams(model.assumedContext))) return undefined;
  // { [i0] -> X[e] }: what each iteration writes; all iterations the same elements
  let writes: IslMap | undefined;
  let iterations: IslSet | undefined;
  for (const s of inside) {
    // { S[i..] -> [i0] }
    const outer = MultiAff.fromAff(s.domain.getSpace().identityMultiAffOnDomain().getAt(0)).asMap();
    const here = s.domain.intersectParams(model.assumedContext).apply(outer);
    iterations = iterations ? iterations.union(here) : here;
    for (const a of s.accesses) {
      if (!mine(a) || a.kind !== 'write') continue;
      const w = a.relation.intersectDomain(s.domain).intersectParams(model.assumedContext).applyDomain(outer);
      writes = writes ? writes.union(w) : w;
    }
  }
  if (!writes || !iterations) return undefined;
  const elements = writes.range();
  const every = UnionMap.fromDomainAndRange(iterations.toUnionSet(), elements.toUnionSet());
  if (!writes.toUnionMap().isEqual(every)) return undefined;
  const lo = elements.dimMinVal(0);
  const hi = elements.dimMaxVal(0);
  if (!lo.isInt() || !hi.isInt()) return undefined;
  const first = lo.getNumSi();
  const count = hi.getNumSi() - first + 1;
  if (count <= 0 || count * x.elementBytes > maxPrivateBytes) return undefined;
  return { array: x, first, count };
}

/**
 * Gives each iteration of region `r` but the last its own copy of `arrays`: a buffer (an alloca
 * in `fn`'s entry, which outlining makes one per thread) stands for the array's base pointer in
 * the loop, except in the last iteration, which writes the array itself. Addresses -O3 computed
 * from the base before the SCoP (`&sum[k]` of a fully unrolled loop, hoisted) are computed again
 * from the chosen base in the loop, and so are those that reach the loop through a scalar slot
 * (an address computed in the SCoP between loops, which code generation passes in memory).
 * Returns the buffers, or why some access to an array in the loop could not be proven to use
 * the chosen base (nothing is changed then).
 */
export function privatizeRegion(fn: IrFunction, r: ParallelRegion, arrays: readonly PrivateArray[], slots: ReadonlySet<Instruction>): Instruction[] | string {
  const region = new Set<BasicBlock>(r.blocks);
  const inside = new Set<BasicBlock>(r.blocks.filter((b) => b !== r.entry && b !== r.header));
  const i64 = intType(64);
  const preds = predecessorMap(fn);
  const plans: { readonly p: PrivateArray; readonly viaSlot: ReadonlyMap<Instruction, Value> }[] = [];
  for (const p of arrays) {
    const plan = addressesOf(r, region, p.array.value, preds, slots);
    if (typeof plan === 'string') return `${p.array.name}: ${plan}`;
    plans.push({ p, viaSlot: plan });
  }
  return plans.map(({ p, viaSlot }) => {
    const base = p.array.value;
    const bytes = p.count * p.array.elementBytes;
    const buffer = new IrBuilder().positionAtStart(fn.blocks[0]!).alloca(arrayOf(i8, bytes), `${p.array.name.replace(/^%/, '')}.private`, 64);
    const hb = new IrBuilder().positionBefore(r.header.instructions[r.header.instructions.length - 1]!);
    const raw = hb.gep(arrayOf(i8, bytes), buffer, [constInt(i64, 0), constInt(i64, 0)]);
    // Element `first` of the array at the buffer's start (an address computation only: no
    // access falls outside the buffer).
    const shifted = hb.gep(i8, raw, [constInt(i64, -p.first * p.array.elementBytes)], undefined, false);
    const own = hb.bitcast(shifted, base.type);
    const last = hb.icmp('eq', r.iterator, r.last, 'par.last');
    const chosen: Value = hb.select(last, base, own, `${p.array.name.replace(/^%/, '')}.mine`);
    // An address from outside the region, derived from the base by GEPs and casts, or read
    // from a slot that holds one: the same from `chosen`.
    const again = new Map<Value, Value>([[base, chosen]]);
    const rebased = (v: Value): Value => {
      const known = again.get(v);
      if (known) return known;
      let out = v;
      const stored = v.kind === 'instruction' ? viaSlot.get(v) : undefined;
      if (stored) out = rebased(stored);
      else if (v.kind === 'instruction' && !(v.parent && region.has(v.parent)) && (v.opcode === 'getelementptr' || v.opcode === 'bitcast')) {
        const from = rebased(v.operands[0]!);
        if (from !== v.operands[0]) {
          const c = cloneInstruction(v);
          setOperand(c, 0, from);
          hb.insert(c, v.name);
          out = c;
        }
      }
      again.set(v, out);
      return out;
    };
    for (const block of inside) {
      for (const inst of block.instructions) {
        inst.operands.forEach((op, k) => {
          const now = rebased(op);
          if (now !== op) setOperand(inst, k, now);
        });
      }
    }
    return buffer;
  });
}

/**
 * How region `r`'s loop reaches the array at `base`, so that `privatizeRegion` can send every
 * access to the private copy: the loads of scalar slots it must read as the address stored
 * there (each with that address), or why some address cannot be rebased. Every operand of the
 * region is followed back through instructions outside it, and through code generation's scalar
 * slots (`slots`) a load reads (to what was stored there). An address of the array must be
 *   - computed from `base` outside the region by GEPs and casts only (computed again from the
 *     chosen base), or
 *   - read from a slot written once, before the region (every path into it passes the store), with
 *     such an address (the load becomes that address, computed again);
 * and neither the loop's header nor its entry may use one. A pointer the region loads from
 * memory other than a slot has no known origin: the loop is refused.
 */
function addressesOf(r: ParallelRegion, region: ReadonlySet<BasicBlock>, base: Value, preds: ReadonlyMap<BasicBlock, readonly BasicBlock[]>, slots: ReadonlySet<Instruction>): Map<Instruction, Value> | string {
  const inRegion = (v: Value): boolean => v.kind === 'instruction' && v.parent !== undefined && region.has(v.parent);
  // Code generation's scalar slots (allocas): only stores through them write them (an outlined
  // region that writes one has a copy per thread; one that reads it gets its address).
  const slotOf = (v: Value): Instruction | undefined => (v.kind === 'instruction' && slots.has(v) ? v : undefined);
  const stores = (slot: Instruction): Instruction[] => slot.uses.filter((u) => u.index === 1 && u.user.kind === 'instruction' && u.user.opcode === 'store').map((u) => u.user as Instruction);
  // Whether `v` may hold an address of the array: outside the region through any operand,
  // anywhere through a slot's stored values.
  const memo = new Map<Value, boolean>();
  const reaches = (v: Value): boolean => {
    if (v === base) return true;
    if (v.kind !== 'instruction') return false;
    const known = memo.get(v);
    if (known !== undefined) return known;
    memo.set(v, false);
    const slot = v.opcode === 'load' ? slotOf(v.operands[0]!) : undefined;
    const out = slot ? stores(slot).some((s) => reaches(s.operands[0]!)) : !inRegion(v) && v.operands.some(reaches);
    memo.set(v, out);
    return out;
  };
  const rebasable = (v: Value): boolean => v === base || (v.kind === 'instruction' && !inRegion(v) && (v.opcode === 'getelementptr' || v.opcode === 'bitcast') && rebasable(v.operands[0]!));
  const viaSlot = new Map<Instruction, Value>();
  // The address a slot load of the region stands for, or why there is none.
  const stored = (load: Instruction, slot: Instruction): string | undefined => {
    const all = stores(slot);
    const only = all.length === 1 ? all[0]! : undefined;
    if (!only || inRegion(only) || !only.parent || !before(only.parent, r.entry, preds)) return 'an address of the array reaches the loop through a slot written more than once or not before the loop';
    if (!rebasable(only.operands[0]!)) return `an address of the array reaches the loop through a slot, computed by ${(only.operands[0] as Instruction).opcode ?? 'a constant'}`;
    viaSlot.set(load, only.operands[0]!);
    return undefined;
  };
  for (const block of r.blocks) {
    for (const inst of block.instructions) {
      if (inst.opcode === 'load' && inst.type.kind === 'ptr' && !slotOf(inst.operands[0]!)) return 'the loop loads an address from memory other than a scalar slot';
      for (const op of inst.operands) {
        if (!reaches(op)) continue;
        if (block === r.entry || block === r.header) return 'the loop computes an address of the array before its body';
        const slot = op.kind === 'instruction' && op.opcode === 'load' ? slotOf(op.operands[0]!) : undefined;
        if (slot) {
          const why = stored(op as Instruction, slot);
          if (why) return why;
          continue;
        }
        if (!rebasable(op)) return `the loop uses an address of the array computed before it by ${(op as Instruction).opcode ?? 'a constant'}`;
      }
    }
  }
  return viaSlot;
}

/**
 * Whether every path to `to` passes through `block`: walking back from `to` without entering
 * `block` finds no block without predecessors (the function's entry, or the start of a fast
 * path not yet wired in, which is why no dominator tree serves here).
 */
function before(block: BasicBlock, to: BasicBlock, preds: ReadonlyMap<BasicBlock, readonly BasicBlock[]>): boolean {
  const seen = new Set<BasicBlock>([block]);
  const work = [to];
  while (work.length > 0) {
    const b = work.pop()!;
    if (seen.has(b)) continue;
    seen.add(b);
    const from = preds.get(b) ?? [];
    if (from.length === 0) return false;
    work.push(...from);
  }
  return true;
}

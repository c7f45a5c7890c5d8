// DeLICM's knowledge of a SCoP: every access as a timed event, the value every
// write stores, and the value every read sees (the paper's "known content").
//
// Time. Each access instance happens at a point of the 2D+1 schedule extended
// by one "phase" dimension, so that accesses of one statement instance are
// ordered as code generated from the model runs them:
//   phase 0              scalar reads (values and PHIs are available at entry)
//   phase 1 + k          the k-th array access, in program order
//   phase 10000 + k      the k-th scalar write (PHI writes sit at the block's end)
// A lifetime or an unused zone is then exactly the set of accesses between two
// such points; conflicts are decided by comparing, per read, the value it sees
// (Polly's Known/Occupied/Unused zones, decided on the access points only).
//
// Values. A write stores a value instance, named in the space
//   V<k>_<Stmt>[i..]   the SSA value k computed by statement instance Stmt[i..]
//   C<k>[]             the SCoP-invariant value k (constant, argument, value defined before the SCoP)
//   MemRef_A[o..]      the content element A[o..] had when the SCoP started
//   Undef[]            undef or poison: a read that sees it may see anything
// and a write that stores what a scalar read or a load of its own statement read ("pass-through":
// an LCSSA PHI forwarding the loop's PHI, GVN's PHI of a loaded element) stores the value that read saw.
import { Aff, type Ctx, DimType, Map as IslMap, MultiAff, UnionMap, type UnionSet, UnionAccessInfo } from 'isl-wasm';
import type { TargetState } from './exactness';
import { type BasicBlock, type Instruction, type Value, calledFunction, predecessors, printValue, typesEqual } from '../../ir';
import type { ScopAccess, ScopModel, ScopStatementModel } from '../../polyhedral/model';
import { equalUpTo, identityBetween, lexLessMap, pointMapSpace, pointSpace, relationOf, tupleMapSpace, tupleUniverse } from '../../polyhedral/relations';

export interface AccessEvent {
  /** `Stmt_25__a3`: the statement's name and the access's position: one tuple per access. */
  readonly tag: string;
  readonly statement: ScopStatementModel;
  readonly access: ScopAccess;
  readonly kind: 'read' | 'write';
  /** The location's tuple now (`MemRef_x__phi`, or the array it was mapped to). */
  location: string;
  /** [params] -> { Tag[i..] -> Location[..] }, restricted to the statement's domain */
  relation: IslMap;
  /** [params] -> { Tag[i..] -> [t0, ..., t2D, phase] } */
  readonly time: IslMap;
  /** For a write: the statement's scalar read or array load whose value it stores unchanged, if any. */
  readonly passThrough: AccessEvent | undefined;
  /** Simplify removed this mapped access (a write of undef, or of the value its element already holds). */
  removed: boolean;
  /** A scalar write whose dead instances (no read sees them) are gone from `relation`. */
  trimmed?: boolean;
  /** A scalar read forwarded as a read of the element a load of its tree read (forward.ts): the load it now stands for. */
  standsFor?: Instruction;
}

export interface Knowledge {
  readonly ctx: Ctx;
  readonly model: ScopModel;
  readonly events: readonly AccessEvent[];
  /** Dimensions of the extended time space (2D+1 schedule + phase). */
  readonly timeDims: number;
  /** [params] -> { WriteTag[i..] -> Value[..] }: what every write stores (original program). */
  readonly writeValue: UnionMap;
  /** [params] -> { ReadTag[i..] -> Value[..] }: what every read sees (original program). */
  readonly readValue: UnionMap;
  /** [params] -> { Location[..] -> Value[..] }: what some locations hold when the SCoP starts (see `entryContent`). */
  readonly entryContent: UnionMap;
  /** [params] -> { WriteTag[i..] -> ReadTag[i'..] }: the last write before each read, same location (original program). */
  readonly reaching: UnionMap;
  /** Arrays some statement may write (over-approximated): never a mapping target. */
  readonly mayWritten: ReadonlySet<string>;
  /**
   * Scalar locations the code after the SCoP reads (values used there, exit PHIs): never mapped,
   * as in Polly, since the code after the SCoP reloads them from their slot.
   */
  readonly escaping: ReadonlySet<string>;
  /** { [t.., p] -> [t'.., p'] : t <=lex t' }: a statement instance at or before another (phases ignored) */
  readonly notBeforeInstance: UnionMap;
  /** { [t.., p] -> [t'.., p'] : t <lex t' }: a statement instance strictly before another */
  readonly beforeInstance: UnionMap;
  /** Per target array: the program as it stands, for the incremental exactness check (exactness.ts; filled on demand). */
  readonly targetStates: Map<string, TargetState>;
  /** Why coalescing refused each mapping it tried (`MemRef_x__phi onto MemRef_C: ...`), for the debug log. */
  readonly rejections: string[];
}

const scalarWritePhase = 10000;

/** The SSA value a write stores: the store's value operand, a PHI's incoming value, or the scalar itself. */
export function storedValue(a: ScopAccess): Value | undefined {
  if (a.kind !== 'write') return undefined;
  if (a.scalar) return a.scalar.kind === 'phi' ? a.scalar.incoming : a.scalar.value;
  const store = a.instruction;
  return store && store.opcode === 'store' ? store.operands[0] : undefined;
}

/** undef and poison: any value will do where they are read. */
export function isUndef(v: Value | undefined): boolean {
  return v !== undefined && (v.kind === 'undef' || v.kind === 'poison');
}

/** A write of undef to a mapped location need not happen at all. */
export function writesUndef(a: ScopAccess): boolean {
  return isUndef(storedValue(a));
}

/** Builds the events and the original program's known content. */
export function buildKnowledge(ctx: Ctx, model: ScopModel): Knowledge {
  const width = model.statements.length === 0 ? 1 : model.statements[0]!.schedule.dim(DimType.out);
  const timeDims = width + 1;
  const events: AccessEvent[] = [];
  const mayWritten = new Set<string>();
  // Constants are equal when they print the same (they need not be one object); other values by identity.
  const valueIds = new Map<Value | string, number>();
  const idOf = (v: Value): number => {
    const key = v.kind.startsWith('const-') || v.kind === 'zeroinitializer' ? printValue(v) : v;
    let id = valueIds.get(key);
    if (id === undefined) valueIds.set(key, (id = valueIds.size));
    return id;
  };
  const scopBlocks = new Set(model.scop.blocks);

  for (const s of model.statements) {
    const n = s.loops.length;
    let arrayIndex = 0;
    let scalarWriteIndex = 0;
    const scalarReads = new Map<Value, AccessEvent>();
    const loads = new Map<Value, AccessEvent>();
    s.accesses.forEach((a, k) => {
      const tag = `${s.name}__a${k}`;
      const phase = a.array.kind === 'array' ? 1 + arrayIndex++ : a.kind === 'read' ? 0 : scalarWritePhase + scalarWriteIndex++;
      if (a.array.kind === 'array' && a.kind === 'write' && a.certainty === 'may') mayWritten.add(a.array.tupleName);
      // [params] -> { Tag[i..] -> [t.., phase] }
      const domain = s.domain.intersectParams(model.context).coalesce().setTupleName(tag);
      // { Tag[i..] -> [phase] }
      const phaseMap = MultiAff.fromAff(Aff.zeroOnDomainSpace(tupleUniverse(ctx, tag, n).getSpace()).addConstantVal(ctx.val(phase))).asMap();
      const time = s.schedule.setTupleName(DimType.in, tag).rangeProduct(phaseMap).flattenRange().intersectDomain(domain).coalesce();
      // [params] -> { Tag[i..] -> Location[..] }
      const relation = a.relation.setTupleName(DimType.in, tag).intersectDomain(domain).coalesce();
      let passThrough: AccessEvent | undefined;
      const stored = storedValue(a);
      if (stored !== undefined) passThrough = scalarReads.get(stored) ?? loads.get(stored);
      const event: AccessEvent = { tag, statement: s, access: a, kind: a.kind, location: a.array.tupleName, relation, time, passThrough, removed: false };
      if (a.scalar && a.kind === 'read') scalarReads.set(a.scalar.value, event);
      // A value loaded by the statement is the element's content at the load (the paper's known content).
      if (!a.scalar && a.kind === 'read' && a.certainty === 'must' && a.instruction && relation.isSingleValued()) loads.set(a.instruction, event);
      events.push(event);
    });
  }

  // [params] -> { WriteTag[i..] -> Value[..] } before pass-throughs are resolved
  const opaqueOf = new Map<AccessEvent, IslMap>();
  const opaque = (e: AccessEvent): IslMap => {
    let m = opaqueOf.get(e);
    if (!m) opaqueOf.set(e, (m = opaqueValue(e)));
    return m;
  };
  const opaqueValue = (e: AccessEvent): IslMap => {
    const s = e.statement;
    const n = s.loops.length;
    const v = storedValue(e.access);
    const inside = v !== undefined && v.kind === 'instruction' && (v as Instruction).parent !== undefined && scopBlocks.has((v as Instruction).parent!);
    const tag = { name: e.tag, dims: n };
    // { Tag[i..] -> Undef[] }
    if (isUndef(v)) return IslMap.universe(tupleMapSpace(ctx, tag, { name: 'Undef', dims: 0 })).intersectDomain(e.relation.domain());
    // { Tag[i..] -> V<k>_S[i..] }: a value of the instance; { Tag[i..] -> C<k>[] }: one from before the SCoP
    const value = v === undefined || inside
      ? identityBetween(ctx, tag, `V${v === undefined ? `w${events.indexOf(e)}` : idOf(v)}_${s.name}`)
      : IslMap.universe(tupleMapSpace(ctx, tag, { name: `C${idOf(v)}`, dims: 0 }));
    return value.intersectDomain(e.relation.domain());
  };
  const writes = events.filter((e) => e.kind === 'write' && !(e.access.certainty === 'may'));
  const reads = events.filter((e) => e.kind === 'read');
  // { [t.., phase] -> [t'.., phase'] : t before t' }, and or else t = t'
  const timeSpace = pointMapSpace(ctx, timeDims, timeDims);
  const beforeInstance = lexLessMap(timeSpace, timeDims - 1).toUnionMap();
  const notBeforeInstance = beforeInstance.union(relationOf(timeSpace, (a, b, pairs) => equalUpTo(pairs, a, b, timeDims - 1)).toUnionMap());
  const reaching = flow(ctx, reads, writes).dependence;

  let writeValue = unionOf(ctx, writes.map(opaque));
  const entry = entryContent(ctx, model, events, (v) => `C${idOf(v)}`);
  let readValue = readValues(ctx, reaching, writeValue, reads, entry);
  // Pass-throughs, a few rounds deep (an LCSSA PHI of an LCSSA PHI...): each round is
  // correct on its own (an unresolved write keeps its opaque, unique value).
  for (let round = 0; round < 3 && writes.some((w) => w.passThrough); round++) {
    let next = unionOf(ctx, []);
    for (const w of writes) {
      if (!w.passThrough) {
        next = next.union(opaque(w).toUnionMap());
        continue;
      }
      const n = w.statement.loops.length;
      // { WriteTag[i..] -> ReadTag[i..] } within one statement instance
      const same = identityBetween(ctx, { name: w.tag, dims: n }, w.passThrough.tag).toUnionMap().intersectDomain(w.relation.domain().toUnionSet());
      const resolved = same.applyRange(readValue);
      const complete = resolved.domain().isEqual(w.relation.domain().toUnionSet()) && resolved.isSingleValued();
      next = next.union(complete ? resolved : opaque(w).toUnionMap());
    }
    writeValue = next;
    readValue = readValues(ctx, reaching, writeValue, reads, entry);
  }
  const escaping = escapingLocations(model);
  trimDeadScalarWrites(ctx, events, reaching, escaping, timeDims);
  return { ctx, model, events, timeDims, writeValue, readValue, entryContent: entry, reaching, mayWritten, escaping, notBeforeInstance, beforeInstance, targetStates: new Map(), rejections: [] };
}

/**
 * [params] -> { Location[..] -> Value[..] }: what locations hold when the SCoP starts, where the
 * code before it says (the paper's known content, at the entry):
 *   - a PHI whose edges from before the SCoP all bring one value holds that value;
 *   - an element the block entering the SCoP stores last (nothing after the store in that block
 *     writes memory) holds the stored value, when a must access of the SCoP through the same
 *     pointer names that one element in every instance (correlation's `stddev[j] = 0.0` before
 *     the loop that sums into stddev[j]).
 * `valueOf` names a value defined before the SCoP (the tuple `C<k>[]`).
 */
function entryContent(ctx: Ctx, model: ScopModel, events: readonly AccessEvent[], valueOf: (v: Value) => string): UnionMap {
  const blocks = new Set(model.scop.blocks);
  let out = UnionMap.emptyCtx(ctx);
  for (const a of model.arrays) {
    if (a.kind !== 'phi' || a.value.kind !== 'instruction' || !a.value.parent || !blocks.has(a.value.parent)) continue;
    const phi = a.value;
    const outside = phi.operands.filter((_, k) => !blocks.has(phi.incomingBlocks![k]!));
    const first = outside[0];
    if (first === undefined || isUndef(first) || !outside.every((v) => v === first || valueOf(v) === valueOf(first))) continue;
    out = out.union(IslMap.universe(tupleMapSpace(ctx, { name: a.tupleName, dims: 0 }, { name: valueOf(first), dims: 0 })).toUnionMap());
  }
  const entering = predecessors(model.scop.entry).filter((b) => !blocks.has(b));
  if (entering.length !== 1) return out;
  const insts = entering[0]!.instructions;
  // The last instruction before the branch that writes memory, if it is a store.
  let store: Instruction | undefined;
  for (let k = insts.length - 2; k >= 0 && !store; k--) {
    const inst = insts[k]!;
    if (inst.opcode === 'store') store = inst;
    else if (mayWriteMemory(inst)) break;
  }
  // An undef stored leaves the content unknown; a value computed in the SCoP is not there yet.
  if (!store || isUndef(store.operands[0]) || (store.operands[0]!.kind === 'instruction' && blocks.has((store.operands[0] as Instruction).parent!))) return out;
  const pointer = store.operands[1]!;
  const pointerOf = (i: Instruction): Value | undefined => (i.opcode === 'store' ? i.operands[1] : i.opcode === 'load' ? i.operands[0] : undefined);
  const access = events.find((e) => !e.access.scalar && e.access.certainty === 'must' && e.access.instruction && pointerOf(e.access.instruction) === pointer);
  if (!access || !typesEqual(store.operands[0]!.type, access.access.instruction!.opcode === 'store' ? access.access.instruction!.operands[0]!.type : access.access.instruction!.type)) return out;
  // [params] -> { Element[..] }: one element for all instances
  const element = access.relation.range();
  if (element.isEmpty() || !element.isSubset(element.lexmax())) return out;
  return out.union(UnionMap.fromDomainAndRange(element.toUnionSet(), tupleUniverse(ctx, valueOf(store.operands[0]!)).toUnionSet()));
}

/** Anything but a load, a pure computation or an intrinsic that only hints may write memory. */
function mayWriteMemory(inst: Instruction): boolean {
  if (inst.opcode === 'call') {
    const callee = calledFunction(inst);
    return !(callee && /^llvm\.(dbg|lifetime|assume)\b/.test(callee.name));
  }
  return ['store', 'fence', 'atomicrmw', 'cmpxchg', 'invoke', 'va_arg', 'callbr'].includes(inst.opcode);
}

/** The scalar locations whose value the code after the SCoP reads: exit PHIs, and values used after the SCoP. */
function escapingLocations(model: ScopModel): Set<string> {
  const blocks = new Set(model.scop.blocks);
  const inside = (b: BasicBlock | undefined): boolean => b !== undefined && blocks.has(b);
  const out = new Set<string>();
  for (const a of model.arrays) {
    if (a.kind === 'phi' && a.value.kind === 'instruction' && !inside(a.value.parent)) out.add(a.tupleName);
    if (a.kind !== 'value' || a.value.kind !== 'instruction') continue;
    const usedAfter = a.value.uses.some((u) => {
      const user = u.user;
      if (user.kind !== 'instruction' || inside(user.parent)) return false;
      // An exit PHI's edge from the SCoP: that PHI's own location carries the value out.
      return !(user.opcode === 'phi' && inside(user.incomingBlocks![u.index]));
    });
    if (usedAfter) out.add(a.tupleName);
  }
  return out;
}

/**
 * Simplify before coalescing: a scalar write instance no read sees (the next write of the
 * location comes first) is dead, and goes from the write's relation. The reads are those of
 * the SCoP and, for a location the code after the SCoP reads, the SCoP's end. So a value
 * written in every iteration of a loop and read only after the SCoP (an exit PHI) is written
 * once, in the last iteration: no loop carries it. This decides the lifetimes coalescing maps;
 * a mapped write then performs only what is left (a partial write), while a scalar left in its
 * slot keeps its whole relation in DeLICM's model (index.ts `rebuild`): the fast path writes
 * the slot in every instance, and a schedule must order those writes too.
 */
function trimDeadScalarWrites(ctx: Ctx, events: readonly AccessEvent[], reaching: UnionMap, escaping: ReadonlySet<string>, timeDims: number): void {
  const writes = events.filter((e) => e.kind === 'write' && e.access.scalar !== undefined && e.access.certainty === 'must');
  // { WriteTag[..] }: instances a read of the SCoP sees
  let seen = reaching.domain();
  for (const location of escaping) {
    const own = writes.filter((w) => w.location === location);
    if (own.length === 0) continue;
    seen = seen.union(flow(ctx, [endRead(ctx, own[0]!, timeDims, tupleUniverse(ctx, location).toUnionSet())], own).dependence.domain());
  }
  for (const w of writes) {
    const domain = w.relation.domain();
    const live = seen.extractSet(domain.getSpace());
    if (domain.isSubset(live)) continue;
    w.relation = w.relation.intersectDomain(live).coalesce();
    w.trimmed = true;
  }
}

/**
 * The SCoP's end as a read of `elements` (a location's, or an array's elements): after every
 * statement, one instance per element (`End[o..]` reads element o), so that the dataflow tells
 * the elements apart. `like` (an access of the location) lends the fields the dataflow does not look at.
 */
export function endRead(ctx: Ctx, like: AccessEvent, timeDims: number, elements: UnionSet): AccessEvent {
  const m = like.relation.dim(DimType.out);
  const end = { name: 'End', dims: m };
  return {
    ...like,
    tag: 'End',
    kind: 'read',
    // { End[o..] -> Element[o..] }
    relation: identityBetween(ctx, end, like.location).intersectRange(elements.extractSet(like.relation.range().getSpace())),
    // { End[o..] -> [t..] }: after every statement
    time: MultiAff.multiValOnDomainSpace(tupleUniverse(ctx, 'End', m).getSpace(), ctx.multiVal(pointSpace(ctx, timeDims), [1_000_000, ...Array<number>(timeDims - 1).fill(0)])).asMap(),
    passThrough: undefined,
    removed: false,
    trimmed: false,
  };
}

export function unionOf(ctx: Ctx, maps: readonly (IslMap | UnionMap)[]): UnionMap {
  let u = UnionMap.emptyCtx(ctx);
  for (const m of maps) u = u.union('toUnionMap' in m ? m.toUnionMap() : m);
  return u;
}

/** The last write (among `writes`) before each read, at the same location, and the reads with none. */
export function flow(ctx: Ctx, reads: readonly AccessEvent[], writes: readonly AccessEvent[]): { dependence: UnionMap; noSource: UnionMap } {
  // [params] -> { ReadTag[..] -> Location[..] }, { WriteTag[..] -> Location[..] }
  const sink = unionOf(ctx, reads.map((e) => e.relation));
  const source = unionOf(ctx, writes.map((e) => e.relation));
  // [params] -> { Tag[..] -> [t.., phase] }
  const time = unionOf(ctx, [...reads, ...writes].map((e) => e.time));
  const result = UnionAccessInfo.fromSink(sink).setMustSource(source).setScheduleMap(time).computeFlow();
  // { WriteTag[..] -> ReadTag[..] }, { ReadTag[..] -> Location[..] }
  return { dependence: result.getMustDependence(), noSource: result.getMustNoSource() };
}

/**
 * { ReadTag[..] -> Value[..] }: the reaching write's value, or the location's content at the
 * SCoP's entry: `entry` ({ Location[..] -> Value[..] }) where known, else the location itself names it.
 */
export function readValues(ctx: Ctx, reaching: UnionMap, writeValue: UnionMap, reads: readonly AccessEvent[], entry: UnionMap): UnionMap {
  const readSet = unionOf(ctx, reads.map((e) => e.relation)).domain();
  const fromWrites = reaching.reverse().applyRange(writeValue);
  // { ReadTag[..] -> Location[..] }: reads no write reaches
  const initial = unionOf(ctx, reads.map((e) => e.relation)).subtractDomain(reaching.range());
  const known = initial.applyRange(entry).union(initial.subtractRange(entry.domain()));
  return fromWrites.union(known).intersectDomain(readSet);
}

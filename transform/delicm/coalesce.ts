// Greedy value coalescing (the DeLICM paper's Listing 6): starting at each array
// store, map the scalar it stores onto the stored element, then the scalars the
// writing statements read, as long as the mapping is exact.
//
// Exactness is decided on the program after the mapping, not approximated: the
// mapping of a scalar location L onto array A is accepted only if every read of
// A (the array's own reads, the reads of scalars mapped onto A before, L's
// reads) and A's content at the SCoP's end see the same value as in the original
// program. That is the paper's conflict test (L's lifetime lies in A's unused
// zone, or A is known to hold the same value there) stated on access points.
import { type Ctx, DimType, type Map as IslMap, type Set as IslSet, Space, UnionMap, type UnionSet } from 'isl-wasm';
import type { ScopStatementModel } from '../../polyhedral/model';
import { equalUpTo, relationOf, tupleMapSpace } from '../../polyhedral/relations';
import { type AccessEvent, type Knowledge, storedValue, unionOf, writesUndef } from './knowledge';
import { mappingIsExact } from './exactness';

export interface Mapping {
  /** The scalar location (`MemRef_v27__phi`) and the array it now lives in. */
  readonly location: string;
  readonly target: string;
  readonly kind: 'value' | 'phi';
}

export interface CoalesceResult {
  readonly mappings: readonly Mapping[];
}

/** Tries every array store of the SCoP as a target; changes the events' locations and relations in place. */
export function coalesce(k: Knowledge, forwarded: ReadonlySet<string> = new Set()): CoalesceResult {
  const { ctx } = k;
  const mappings: Mapping[] = [];
  // Forwarded scalars are gone already.
  const mapped = new Set<string>(forwarded);
  const scalarKind = new Map(k.model.arrays.filter((a) => a.kind !== 'array').map((a) => [a.tupleName, a.kind as 'value' | 'phi'] as const));
  // tryMap's verdict depends on the scalar, the target array (not which of its stores) and the mappings made
  // so far: a refusal stands until the next mapping, so both loops below ask isl once per pair.
  const refused = new Set<string>();
  const attempt = (location: string, target: AccessEvent): boolean => {
    const pair = `${location} onto ${target.location}`;
    if (refused.has(pair)) return false;
    const before = ctx.operations;
    if (!tryMap(ctx, k, location, target)) {
      refused.add(pair);
      // What the refusal cost, for the debug log (`DeLICM refused mappings`).
      k.rejections[k.rejections.length - 1] += ` (${ctx.operations - before} isl operations)`;
      return false;
    }
    refused.clear();
    return true;
  };

  for (const target of k.events) {
    if (target.kind !== 'write' || target.access.array.kind !== 'array' || target.access.certainty !== 'must') continue;
    if (k.mayWritten.has(target.location) || !target.relation.isSingleValued()) continue;
    const stored = storedValue(target.access);
    if (stored === undefined) continue;
    // The scalar the store writes, or else every scalar its statement reads (the paper's Listing 6).
    const inputs = scalarReadsOf(k, target.statement);
    const direct = inputs.filter((e) => e.access.scalar!.value === stored);
    const worklist = (direct.length > 0 ? direct : inputs).map((e) => e.location);
    const tried = new Set<string>();
    while (worklist.length > 0) {
      const location = worklist.shift()!;
      if (tried.has(location) || mapped.has(location) || !scalarKind.has(location)) continue;
      tried.add(location);
      if (!attempt(location, target)) continue;
      removeRedundantWrites(k);
      mapped.add(location);
      mappings.push({ location, target: target.location, kind: scalarKind.get(location)! });
      // Continue with the inputs of the statements that wrote the scalar.
      for (const w of k.events) {
        if (w.kind === 'write' && w.access.array.tupleName === location) worklist.push(...scalarReadsOf(k, w.statement).map((e) => e.access.array.tupleName));
      }
    }
  }
  // Then every scalar still in a register, against every array some store writes.
  const arrays = [...new Set(k.events.filter((e) => e.kind === 'write' && !e.access.scalar && e.access.certainty === 'must' && !k.mayWritten.has(e.location)).map((e) => e.location))];
  // Only scalars written inside loops (what the paper counts), and arrays stored in a loop around one of their writers.
  for (const location of scalarKind.keys()) {
    if (mapped.has(location)) continue;
    const writers = k.events.filter((e) => e.kind === 'write' && e.access.array.tupleName === location && e.statement.loops.length > 0);
    if (writers.length === 0) continue;
    const loops = new Set(writers.flatMap((w) => w.statement.loops));
    const near = new Set(k.events.filter((e) => e.kind === 'write' && !e.access.scalar && e.statement.loops.some((l) => loops.has(l))).map((e) => e.location));
    for (const array of arrays.filter((a) => near.has(a))) {
      const target = k.events.find((e) => e.kind === 'write' && !e.access.scalar && e.location === array)!;
      if (!attempt(location, target)) continue;
      removeRedundantWrites(k);
      mapped.add(location);
      mappings.push({ location, target: array, kind: scalarKind.get(location)! });
      break;
    }
  }
  return { mappings };
}

function scalarReadsOf(k: Knowledge, s: ScopStatementModel): AccessEvent[] {
  return k.events.filter((e) => e.statement === s && e.kind === 'read' && e.access.scalar !== undefined && e.location === e.access.array.tupleName);
}

/** Maps `location` onto the elements `target` writes if that is exact; true when done, else the reason is in `k.rejections`. */
function tryMap(ctx: Ctx, k: Knowledge, location: string, target: AccessEvent): boolean {
  const reject = (why: string): false => {
    k.rejections.push(`${location} onto ${target.location}: ${why}`);
    return false;
  };
  // Reads reloaded from an array element already have their value: not the location's any more.
  const own = k.events.filter((e) => e.access.array.tupleName === location && e.location === location);
  const ownWrites = own.filter((e) => e.kind === 'write');
  const ownReads = own.filter((e) => e.kind === 'read');
  if (ownWrites.length === 0) return reject('the scalar is never written in the SCoP');
  if (k.escaping.has(location)) return reject('the code after the SCoP reads it');
  // The value must fill the element exactly: code generation loads and stores it there.
  const scalarBytes = k.model.arrays.find((a) => a.tupleName === location)?.elementBytes;
  if (scalarBytes !== target.access.array.elementBytes) return reject(`its ${scalarBytes} bytes are not the element's ${target.access.array.elementBytes}`);

  // Every store to the target's array may say where the value goes, not only the one coalescing started from.
  const stores = k.events.filter((e) => e.kind === 'write' && !e.access.scalar && e.access.certainty === 'must' && e.location === target.location);
  // { [t..] -> TargetTag[..] }: when the target stores run
  const targetAt = unionOf(ctx, stores.map((e) => e.time)).reverse();
  // { TargetTag[..] -> [t..] }
  const targetTime = targetAt.reverse();
  // { TargetTag[..] -> Element[..] }
  const targetElement = unionOf(ctx, stores.map((e) => e.relation));
  /**
   * { Tag[..] -> Element[..] }: for the `instances` of `e`, the element of the target store of the
   * same statement instance or the first one after it, or else of the last one before it, among
   * the target instances in the same iterations of the loops both are in. Only stores in a loop
   * nest with `e` (one's loops around the other's): a store of another nest holds one element for
   * every iteration of `e`'s loops (gemver's x[0] after x[i]'s loop).
   */
  const nearestTargetElement = (e: AccessEvent, instances: IslSet): UnionMap => {
    // { Tag[..] -> TargetTag[..] }
    const together = unionOf(ctx, stores.filter((t) => nested(e, t)).map((t) => sameIterations(ctx, e, t).toUnionMap()));
    // { Tag[..] -> [t..] }
    const at = e.time.intersectDomain(instances).toUnionMap();
    const next = at.applyRange(k.notBeforeInstance).intersect(together.applyRange(targetTime)).lexmin();
    const previous = at.applyRange(k.beforeInstance.reverse()).intersect(together.applyRange(targetTime)).subtractDomain(next.domain()).lexmax();
    return next.union(previous).applyRange(targetAt).applyRange(targetElement);
  };
  const proposed = new Map<AccessEvent, IslMap | UnionMap>();
  // { ReadTag[..] -> ... }: write instances some read sees
  const readWrites = k.reaching.domain();
  const loadedWrites = new Set<AccessEvent>();
  for (const w of ownWrites) {
    // A value loaded from the target array is already in its element: GVN's PHIs in stencils go back there.
    const loaded = loadOf(k, w, target.location);
    const removable = !k.events.some((o) => o !== w && !o.removed && o.kind === 'write' && o.statement === w.statement && o.location === target.location);
    if (loaded && removable) {
      // Written back where it came from, then removed as redundant: it may be an element the SCoP only reads.
      loadedWrites.add(w);
      // { WriteTag[..] -> Element[..] }
      proposed.set(w, loaded.relation.setTupleName(DimType.in, w.tag));
      continue;
    }
    // { WriteTag[..] -> Element[..] }: where the scalar's value goes (instances left after simplify)
    let element = nearestTargetElement(w, w.relation.domain());
    // Instances with no target at all may stay unwritten (a partial write) if nobody reads them.
    const unmapped = w.relation.domain().toUnionSet().subtract(element.domain());
    if (!unmapped.isEmpty() && !unmapped.intersect(readWrites).isEmpty()) return reject('some instance writes no element but is read');
    if (element.isEmpty()) return reject('no target store in the loops around its write');
    if (!element.isSingleValued()) return reject('a write would go to several elements');
    element = element.coalesce();
    proposed.set(w, element);
  }
  // { ReadTag[..] -> Element[..] }: a read finds the value where its reaching write put it
  const writeElements = unionOf(ctx, [...proposed.values()]);
  // A read no write of the SCoP reaches sees what the location held at the entry: the nearest
  // target element must hold the same then (the exactness check below decides it).
  const atEntry = k.entryContent.domain().extractSet(Space.unit(ctx).addNamedTupleIdUi(ctx.id(location), 0));
  for (const r of ownReads) {
    const instances = r.relation.domain().toUnionSet();
    let element = k.reaching.intersectRange(instances).reverse().applyRange(writeElements);
    const unreached = instances.subtract(k.reaching.range());
    if (!unreached.isEmpty() && !atEntry.isEmpty()) element = element.union(nearestTargetElement(r, unreached.extractSet(r.relation.domain().getSpace())));
    if (element.isEmpty() || !element.domain().isEqual(instances) || !element.isSingleValued()) return reject('a read finds no single element its reaching write put the value in');
    proposed.set(r, element);
  }

  // Only elements the SCoP itself writes exist for sure (the store's element in another iteration might not).
  const elements = unionOf(ctx, k.events.filter((e) => e.kind === 'write' && e.access.array.tupleName === target.location).map((e) => e.relation)).range();
  for (const [e, relation] of proposed) {
    // A read may find its value in an element the SCoP only reads (stencils); writes go to written elements.
    const exists = e.kind === 'read' || loadedWrites.has(e) ? elements.union(readElements(ctx, k, target.location)) : elements;
    if (!unionOf(ctx, [relation]).range().isSubset(exists)) return reject('an element the SCoP never writes');
  }

  // The program after the mapping, restricted to the target array: its events with their new relations.
  const copies = new Map<AccessEvent, AccessEvent>();
  for (const [e, relation] of proposed) copies.set(e, { ...e, location: target.location, relation: relationFrom(relation) });
  const atTarget = k.events.filter((e) => !e.removed && (e.location === target.location || proposed.has(e))).map((e) => copies.get(e) ?? e);
  const proposedCopies = new Set(copies.values());
  const isProposed = (e: AccessEvent): boolean => proposedCopies.has(e);
  // Mapped writes that change nothing are not performed (simplify removes them right after).
  const redundant = redundantWrites(atTarget);
  const originalOf = new Map([...copies].map(([e, copy]) => [copy, e] as const));
  const exact = mappingIsExact(k, k.targetStates, {
    target: target.location,
    existingWrites: atTarget.filter((e) => e.kind === 'write' && !isProposed(e) && !redundant.has(e)),
    existingReads: atTarget.filter((e) => e.kind === 'read' && !isProposed(e)),
    proposedWrites: atTarget.filter((e) => e.kind === 'write' && isProposed(e) && !redundant.has(e)),
    proposedReads: atTarget.filter((e) => e.kind === 'read' && isProposed(e)),
    removedWrites: atTarget.filter((e) => e.kind === 'write' && !isProposed(e) && redundant.has(e)),
    originalOf: (e) => originalOf.get(e) ?? e,
  }, k.events.filter((e) => e.kind === 'write' && e.access.array.tupleName === target.location));
  if (!exact) return reject(`some read (or the array's final content) would see another value`);

  for (const [e, copy] of copies) {
    e.location = target.location;
    // The copy's relation object itself: the kept state recognizes the event by it.
    e.relation = copy.relation;
  }
  return true;
}

/**
 * Simplify, after each mapping: a mapped write of undef is dropped (LLVM drops
 * `store undef` too), and so is a mapped write that stores, unchanged, what a
 * mapped read of its own statement instance loaded from the same element, when no
 * other write of that array sits in the statement (the store would write back
 * what is there). Later mappings are checked against the program without them.
 */
function removeRedundantWrites(k: Knowledge): void {
  const locations = new Set(k.events.filter((e) => !e.removed && isMapped(e)).map((e) => e.location));
  for (const location of locations) {
    for (const w of redundantWrites(k.events.filter((e) => !e.removed && e.location === location))) w.removed = true;
  }
}

const isMapped = (e: AccessEvent): boolean => e.access.scalar !== undefined && e.location !== e.access.array.tupleName;

/**
 * The mapped writes among `events` (the accesses of one location, as they are or as a
 * mapping proposes them) that change nothing: writes of undef, and writes of the value
 * already there: read from the same element by a mapped read or a load of the statement,
 * or just stored there by the statement's own store of the same value, with no other
 * write of the location in the statement.
 */
function redundantWrites(events: readonly AccessEvent[]): Set<AccessEvent> {
  const redundant = new Set<AccessEvent>();
  const byTag = new Map(events.map((e) => [e.tag, e] as const));
  for (const w of events) {
    if (w.kind !== 'write' || !isMapped(w)) continue;
    if (writesUndef(w.access)) {
      redundant.add(w);
      continue;
    }
    const stored = storedValue(w.access);
    const read = w.passThrough ? byTag.get(w.passThrough.tag) : undefined;
    const store = events.find((o) => o.statement === w.statement && o.kind === 'write' && !o.access.scalar && storedValue(o.access) === stored);
    const source = read && (read.access.scalar === undefined || isMapped(read)) ? read : store;
    if (!source) continue;
    const others = events.some((o) => o !== w && o !== store && !redundant.has(o) && o.kind === 'write' && o.statement === w.statement);
    if (others) continue;
    // { WriteTag[i..] -> Element[..] } the same element in every instance that writes
    if (source.relation.setTupleName(DimType.in, w.tag).intersectDomain(w.relation.domain()).isEqual(w.relation)) redundant.add(w);
  }
  return redundant;
}

/** Elements of `array` some must read of the original program reads. */
function readElements(ctx: Ctx, k: Knowledge, array: string): UnionSet {
  return unionOf(ctx, k.events.filter((e) => e.kind === 'read' && !e.access.scalar && e.access.certainty === 'must' && e.location === array).map((e) => e.relation)).range();
}

/** The statement's must load (of `array`) whose value `w` writes, if any. */
function loadOf(k: Knowledge, w: AccessEvent, array: string): AccessEvent | undefined {
  const stored = storedValue(w.access);
  if (stored === undefined || stored.kind !== 'instruction' || stored.opcode !== 'load') return undefined;
  return k.events.find((e) => e.statement === w.statement && e.kind === 'read' && !e.access.scalar && e.access.instruction === stored && e.location === array && e.access.certainty === 'must' && e.relation.isSingleValued());
}

/** Whether the loops around one of the two statements are (outermost first) the loops around the other's. */
function nested(w: AccessEvent, target: AccessEvent): boolean {
  const a = w.statement.loops;
  const b = target.statement.loops;
  return a.slice(0, b.length).every((l, d) => l === b[d]) || b.slice(0, a.length).every((l, d) => l === a[d]);
}

/** { WriteTag[i..] -> TargetTag[j..] : i and j agree on the loops around both statements } */
function sameIterations(ctx: Ctx, w: AccessEvent, target: AccessEvent): IslMap {
  const a = w.statement.loops;
  const b = target.statement.loops;
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  const space = tupleMapSpace(ctx, { name: w.tag, dims: a.length }, { name: target.tag, dims: b.length });
  return relationOf(space, (i, j, pairs) => equalUpTo(pairs, i, j, common));
}

/** A union map over one tuple pair as a map. */
function relationFrom(u: IslMap | UnionMap): IslMap {
  return u instanceof UnionMap ? u.asMap() : u;
}

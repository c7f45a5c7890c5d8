// Reloads (the DeLICM paper's Listing 10, Polly's ForwardOpTree "reload known content"):
// a value that one statement loads from an array element and another statement reads as a
// scalar can be loaded again in the reading statement, from the same element, when that
// element still holds the same content there. The scalar read becomes a read of the element
// (a mapped read: code generation loads it at the statement's start), and once no scalar
// read of the value is left, its write goes too.
//
// PHIs too: -O3's rolling window over a row (seidel-2d in PolyBench: the value loaded at j is
// read through a PHI at j + 1, and through a PHI of that PHI at j + 2) has a PHI location per
// window element, written in two statements (the row's preload and the loop's latch), each
// storing what a load of its statement read or a scalar read already reloaded. A location is
// reloaded when every write is such, all from one array; chains take a few rounds.
//
// Exact by the knowledge: the element's content at the read's time (the dataflow of the
// array's writes up to it) must be the value the scalar read sees in the original program.
import { DimType } from 'isl-wasm';
import { type AccessEvent, type Knowledge, flow, readValues, unionOf } from './knowledge';

export interface Reloading {
  /** Scalar reads replaced by reads of the element (the paper's "reloads"). */
  readonly reloads: number;
  /** Scalar locations with no scalar read left: their writes are removed, coalescing leaves them alone. */
  readonly locations: ReadonlySet<string>;
}

/** Turns every scalar read of a loaded value whose element still holds it into a read of that element. */
export function reloadKnownContent(k: Knowledge): Reloading {
  const { ctx } = k;
  let reloads = 0;
  const locations = new Set<string>();
  const byLocation = new Map<string, AccessEvent[]>();
  for (const e of k.events) {
    if (e.removed || e.access.scalar === undefined || e.location !== e.access.array.tupleName) continue;
    byLocation.set(e.location, [...(byLocation.get(e.location) ?? []), e]);
  }
  // A PHI of a PHI (-O3's rolling window: the value loaded at j, read at j + 1 and j + 2) waits for
  // the PHI it copies to be reloaded: a few rounds.
  const done = new Set<string>();
  for (let round = 0; round < 3; round++) {
    let progress = false;
    for (const [location, events] of byLocation) {
      if (done.has(location)) continue;
      const reloaded = reloadLocation(k, location, events, locations);
      if (reloaded === undefined) continue;
      done.add(location);
      reloads += reloaded;
      progress = true;
    }
    if (!progress) break;
  }
  return { reloads, locations };
}

/**
 * Reloads the scalar reads of `location` whose element still holds their value; the number
 * reloaded, or undefined when its writes do not all store what a must load (or a reloaded
 * scalar read) of their statement read from one element of an array the SCoP writes surely.
 */
function reloadLocation(k: Knowledge, location: string, events: readonly AccessEvent[], locations: Set<string>): number | undefined {
  const { ctx } = k;
  let reloads = 0;
  {
    const writes = events.filter((e) => e.kind === 'write');
    const reads = events.filter((e) => e.kind === 'read');
    // Every write stores what a must load of its statement read from one element (or a scalar read reloaded so), all of one array.
    const sources = writes.map((w) => w.passThrough);
    const elementOf = (e: AccessEvent | undefined): AccessEvent | undefined =>
      e && e.kind === 'read' && e.location !== e.access.array.tupleName ? e : e && e.kind === 'read' && !e.access.scalar ? e : undefined;
    if (writes.length === 0 || reads.length === 0 || sources.some((s) => elementOf(s) === undefined)) return undefined;
    const array = sources[0]!.location;
    if (sources.some((s) => s!.location !== array) || k.mayWritten.has(array)) return undefined;
    // { WriteTag[i..] -> Element[..] }: the element each write's statement instance loaded
    const loaded = unionOf(ctx, writes.map((w, n) => sources[n]!.relation.setTupleName(DimType.in, w.tag)));
    const arrayWrites = k.events.filter((e) => e.kind === 'write' && !e.removed && e.location === array && e.access.certainty === 'must');
    let left = reads.length;
    for (const r of reads) {
      const instances = r.relation.domain().toUnionSet();
      // { ReadTag[i..] -> Element[..] }: where the reaching write's value came from
      const element = k.reaching.intersectRange(instances).reverse().applyRange(loaded);
      if (!element.domain().isEqual(instances) || !element.isSingleValued()) continue;
      const reload: AccessEvent = { ...r, location: array, relation: element.asMap() };
      // { ReadTag[i..] -> Value[..] }: the element's content at the read's time, and the value the scalar read sees
      const seen = readValues(ctx, flow(ctx, [reload], arrayWrites).dependence, k.writeValue, [reload], k.entryContent);
      if (!seen.isEqual(k.readValue.intersectDomain(instances))) continue;
      r.location = reload.location;
      r.relation = reload.relation;
      reloads++;
      left--;
    }
    if (left === 0) {
      for (const w of writes) w.removed = true;
      locations.add(location);
    }
  }
  return reloads;
}

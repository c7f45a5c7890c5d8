// Reloads (the DeLICM paper's Listing 10, Polly's ForwardOpTree "reload known content"):
// a value that one statement loads from an array element and another statement reads as a
// scalar can be loaded again in the reading statement, from the same element, when that
// element still holds the same content there. The scalar read becomes a read of the element
// (a mapped read: code generation loads it at the statement's start), and once no scalar
// read of the value is left, its write goes too.
//
// Exact by the knowledge: the element's content at the read's time (the dataflow of the
// array's writes up to it) must be the value the scalar read sees in the original program.
import { DimType } from 'isl-wasm';
import { type AccessEvent, type Knowledge, flow, readValues } from './knowledge';

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
    if (e.removed || e.access.scalar?.kind !== 'value' || e.location !== e.access.array.tupleName) continue;
    byLocation.set(e.location, [...(byLocation.get(e.location) ?? []), e]);
  }
  for (const [location, events] of byLocation) {
    const writes = events.filter((e) => e.kind === 'write');
    const reads = events.filter((e) => e.kind === 'read');
    // One write, storing what a must load of its statement read from one element.
    const load = writes.length === 1 ? writes[0]!.passThrough : undefined;
    if (!load || load.kind !== 'read' || load.access.scalar || reads.length === 0) continue;
    if (load.access.instruction !== writes[0]!.access.scalar!.value || k.mayWritten.has(load.location)) continue;
    const write = writes[0]!;
    // { WriteTag[i..] -> Element[..] }: the element the write's statement instance loaded
    const loaded = load.relation.setTupleName(DimType.in, write.tag).toUnionMap();
    const arrayWrites = k.events.filter((e) => e.kind === 'write' && !e.removed && e.location === load.location && e.access.certainty === 'must');
    let left = reads.length;
    for (const r of reads) {
      const instances = r.relation.domain().toUnionSet();
      // { ReadTag[i..] -> Element[..] }: where the reaching write's value came from
      const element = k.reaching.intersectRange(instances).reverse().applyRange(loaded);
      if (!element.domain().isEqual(instances) || !element.isSingleValued()) continue;
      const reload: AccessEvent = { ...r, location: load.location, relation: element.asMap() };
      // { ReadTag[i..] -> Value[..] }: the element's content at the read's time, and the value the scalar read sees
      const seen = readValues(ctx, flow(ctx, [reload], arrayWrites).dependence, k.writeValue, [reload], k.entryContent);
      if (!seen.isEqual(k.readValue.intersectDomain(instances))) continue;
      r.location = reload.location;
      r.relation = reload.relation;
      reloads++;
      left--;
    }
    if (left === 0) {
      write.removed = true;
      locations.add(location);
    }
  }
  return { reloads, locations };
}

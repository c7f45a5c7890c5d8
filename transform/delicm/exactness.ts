// The exactness check of a proposed mapping (coalesce.ts): after the mapping, every read of the
// target array, and the SCoP's end reading every element the SCoP writes, must see the value it
// saw in the original program (where that was undef, any value will do).
//
// Computed incrementally. Per target array the check keeps the program as it stands (the
// performed writes, the reads, and which write each read sees), in which every read already sees
// its original value. A mapping adds writes and reads to the array (the proposed ones); so
//   - an existing read sees a proposed write exactly when the last proposed write before it comes
//     after the last existing one: only those reads are compared;
//   - a proposed read is compared with what the last write before it, old or proposed, stores.
// Both dataflows have few sources or few sinks, where the whole array's dataflow per proposal
// (covariance: 15-21 writes, 5-9 reads over 11 loops) cost about 0.6M isl operations each time.
// When the proposal makes an existing write redundant, or the array changed since the state was
// kept, the state is computed anew from the whole array's dataflow.
import { type Ctx, UnionMap } from 'isl-wasm';
import { tupleUniverse } from '../../polyhedral/relations';
import { type AccessEvent, type Knowledge, endRead, flow, readValues, unionOf } from './knowledge';

/** The program as it stands at one target array. */
export interface TargetState {
  /** The SCoP's end as a read of every element the original program writes. */
  readonly end: AccessEvent;
  /** { End[] -> Value[..] }: what the end sees in the original program. */
  readonly endValue: UnionMap;
  /** The performed writes and the reads (not the end), with the relation each had. */
  writes: ReadonlyMap<AccessEvent, unknown>;
  reads: ReadonlyMap<AccessEvent, unknown>;
  /** { WriteTag[..] -> ReadTag[..] }: the write each read (and the end) sees now. */
  source: UnionMap;
}

/** A proposal at one target array: the events after the mapping, split into existing and proposed. */
export interface Proposal {
  readonly target: string;
  /** Existing events of the target that stay performed (not removed, not made redundant). */
  readonly existingWrites: readonly AccessEvent[];
  readonly existingReads: readonly AccessEvent[];
  /** Existing writes the proposal makes redundant: no longer performed. */
  readonly removedWrites: readonly AccessEvent[];
  /** Proposed events with their new relations; writes only those performed (not redundant). */
  readonly proposedWrites: readonly AccessEvent[];
  readonly proposedReads: readonly AccessEvent[];
  /** The event a proposed copy stands for (the one the knowledge keeps). */
  readonly originalOf: (e: AccessEvent) => AccessEvent;
}

/** True when every read (and the end) sees its original value after the proposal; keeps the new state in `states` then. */
export function mappingIsExact(k: Knowledge, states: Map<string, TargetState>, p: Proposal, originalWrites: readonly AccessEvent[]): boolean {
  const { ctx } = k;
  const current = [...p.existingWrites, ...p.removedWrites];
  let state = states.get(p.target);
  if (!state && untouched(p, current)) state = original(ctx, k, p, current, originalWrites);
  if (!state || !matches(state.reads, p.existingReads) || !current.every((w) => state!.writes.get(w) === w.relation)) return wholeCheck(ctx, k, p, states, originalWrites, state);
  // The dataflow names sink instances, not elements: a read of several elements needs the whole check.
  if (![...p.existingReads, ...p.proposedReads].every((e) => e.relation.isSingleValued())) return wholeCheck(ctx, k, p, states, originalWrites, state);
  const { end } = state;
  const writesAfter = [...p.existingWrites, ...p.proposedWrites];
  // Writes the state has that are gone: removed as redundant after the last mapping, or by this proposal.
  const gone = [...state.writes.keys()].filter((w) => !p.existingWrites.includes(w));
  // { ReadTag[..] }: read instances that saw a write that is gone; they see another one now
  const affected = state.source.intersectDomain(unionOf(ctx, gone.map((w) => w.relation)).domain()).range();
  const sinks = [...p.existingReads, end];
  const restricted = sinks.map((e) => ({ ...e, relation: e.relation.intersectDomain(affected.extractSet(e.relation.domain().getSpace())) }));
  // { WriteTag[..] -> ReadTag[..] }: the affected reads' new sources, among all writes after the proposal
  const fromAll = gone.length === 0 ? UnionMap.emptyCtx(ctx) : flow(ctx, restricted, writesAfter).dependence;
  const kept = state.source.subtractRange(affected);
  // { ProposedTag[..] -> ReadTag[..] }: the last proposed write before each other existing read
  const fromProposed = flow(ctx, sinks, p.proposedWrites).dependence.subtractRange(affected);
  // { ReadTag[..] -> [t..] }
  const timeOf = (events: readonly AccessEvent[]): UnionMap => unionOf(ctx, events.map((e) => e.time));
  const oldTime = kept.reverse().applyRange(timeOf(p.existingWrites));
  const newTime = fromProposed.reverse().applyRange(timeOf(p.proposedWrites));
  // Reads whose last write is now a proposed one.
  const won = oldTime.union(newTime).lexmax().intersect(newTime).domain();
  const wonSource = fromProposed.intersectRange(won);
  // { ProposedReadTag[..] -> ... }: what the proposed reads see, from any write
  const forProposed = flow(ctx, p.proposedReads, writesAfter).dependence;
  // { ReadTag[..] -> Value[..] } of every read whose source changed
  const changed = readValues(ctx, fromAll, k.writeValue, restricted, k.entryContent).union(wonSource.reverse().applyRange(k.writeValue));
  const seen = changed.union(readValues(ctx, forProposed, k.writeValue, p.proposedReads, k.entryContent));
  const compared = affected.union(won).union(unionOf(ctx, p.proposedReads.map((e) => e.relation)).domain());
  const expected = k.readValue.union(state.endValue).intersectDomain(compared);
  if (!sameExceptUndef(ctx, seen, expected)) return false;
  states.set(p.target, {
    ...state,
    writes: relations(writesAfter, p.originalOf),
    reads: relations([...p.existingReads, ...p.proposedReads], p.originalOf),
    source: kept.subtractRange(won).union(wonSource).union(fromAll).union(forProposed),
  });
  return true;
}

/** The whole array's dataflow after the proposal, every read compared (when no state can be kept up). */
function wholeCheck(ctx: Ctx, k: Knowledge, p: Proposal, states: Map<string, TargetState>, originalWrites: readonly AccessEvent[], old: TargetState | undefined): boolean {
  const { end, endValue } = old ?? liveOut(ctx, k, originalWrites);
  const reads = [...p.existingReads, ...p.proposedReads];
  const writes = [...p.existingWrites, ...p.proposedWrites];
  const after = flow(ctx, [...reads, end], writes).dependence;
  const seen = readValues(ctx, after, k.writeValue, [...reads, end], k.entryContent);
  const expected = k.readValue.intersectDomain(unionOf(ctx, reads.map((e) => e.relation)).domain()).union(endValue);
  if (!sameExceptUndef(ctx, seen, expected)) return false;
  states.set(p.target, { end, endValue, writes: relations(writes, p.originalOf), reads: relations(reads, p.originalOf), source: after });
  return true;
}

/** The SCoP's end reading every element the original program writes (the array's live-out content), and what it sees there. */
function liveOut(ctx: Ctx, k: Knowledge, originalWrites: readonly AccessEvent[]): { end: AccessEvent; endValue: UnionMap; endSource: UnionMap } {
  const end = endRead(ctx, originalWrites[0]!, k.timeDims, unionOf(ctx, originalWrites.map((e) => e.relation)).range());
  // { WriteTag[..] -> End[] }
  const endSource = flow(ctx, [end], originalWrites).dependence;
  // { End[] -> Value[..] }
  const endValue = readValues(ctx, endSource, k.writeValue, [end], k.entryContent);
  return { end, endValue, endSource };
}

/** The target as the original program has it: no mapping touched it. */
function untouched(p: Proposal, current: readonly AccessEvent[]): boolean {
  return [...current, ...p.existingReads].every((e) => !e.access.scalar && !e.trimmed);
}

/** The state of the original program at the target: each read sees what the knowledge's dataflow says. */
function original(ctx: Ctx, k: Knowledge, p: Proposal, current: readonly AccessEvent[], originalWrites: readonly AccessEvent[]): TargetState {
  const { end, endValue, endSource } = liveOut(ctx, k, originalWrites);
  // { WriteTag[..] -> ReadTag[..] } of the target's reads, and the end's (the writes are the original ones)
  const reads = unionOf(ctx, p.existingReads.map((e) => e.relation)).domain();
  const source = k.reaching.intersectRange(reads).union(endSource);
  return { end, endValue, writes: relations(current, (e) => e), reads: relations(p.existingReads, (e) => e), source };
}

/** Each event (the knowledge's own, not a proposal's copy) with the relation object it has. */
function relations(events: readonly AccessEvent[], originalOf: (e: AccessEvent) => AccessEvent): Map<AccessEvent, unknown> {
  return new Map(events.map((e) => [originalOf(e), e.relation] as const));
}

/** The kept events are exactly `events`, with the relations they have. */
function matches(kept: ReadonlyMap<AccessEvent, unknown>, events: readonly AccessEvent[]): boolean {
  return kept.size === events.length && events.every((e) => kept.get(e) === e.relation);
}

/** { ReadTag[..] -> Value[..] } equal, but where `expected` is undef (any value will do there). */
function sameExceptUndef(ctx: Ctx, seen: UnionMap, expected: UnionMap): boolean {
  const free = expected.intersectRange(tupleUniverse(ctx, 'Undef').toUnionSet()).domain();
  return seen.subtractDomain(free).isEqual(expected.subtractDomain(free));
}

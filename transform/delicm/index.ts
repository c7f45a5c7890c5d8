// DeLICM on one SCoP model ("DeLICM: Scalar Dependence Removal at Zero Memory
// Cost", Kruse and Grosser, CGO 2018): map scalar and PHI locations onto array
// elements whose content is not needed meanwhile (or holds the same value), so
// the scalar dependences -O3 introduced disappear from the model.
//
// The contract with code generation: the result is a new `ScopModel`
// with the same statements, domains and schedule; an access with
// `array.kind === 'array'` and `scalar !== undefined` is a mapped scalar: its
// `relation` ([params] -> { Stmt[i..] -> MemRef_A[o..] }) says which element of A
// holds the value. Generate a mapped read as a load of that element at the
// statement's start (replacing the SSA value / PHI), and a mapped write as a store
// of `storedValue(access)` (the PHI's incoming value, or the scalar itself) at the
// statement's end, in the accesses' order. A mapped write's relation may cover only
// part of the domain (a partial write: store only in those instances). Scalar reads
// removed by operand-tree forwarding are listed in `forwardedTrees`: copy those
// instructions (operands first) into the statement instead. A reload (a scalar read of a
// loaded value turned into a read of the element it came from) is a mapped read too. `dependences` are recomputed on the
// new accesses. The original model is not changed.
import { type Ctx, DimType, IslError, IslQuotaError } from 'isl-wasm';
import { computeDependences } from '../../polyhedral/dependences';
import type { ScopAccess, ScopModel, ScopStatementModel } from '../../polyhedral/model';
import { type Mapping, coalesce } from './coalesce';
import { type Instruction, type Value, printValue } from '../../ir';
import { forwardOperandTrees } from './forward';
import { reloadKnownContent } from './reload';
import { type AccessEvent, buildKnowledge } from './knowledge';

export { storedValue } from './knowledge';
import { storedValue } from './knowledge';

/** The report's `delicm` field: the columns of the paper's Tables 1 and 2. */
export interface DelicmCounters {
  forwards: number;
  reloads: number;
  mappedScalars: number;
  mappedPhis: number;
  /** Scalar (value and PHI) writes in statements inside a loop, before and after. */
  scalarWritesBefore: number;
  scalarWritesAfter: number;
}

export interface DelicmScopResult {
  readonly original: ScopModel;
  /** The transformed model; the original when nothing changed. */
  readonly model: ScopModel;
  readonly counters: DelicmCounters;
  readonly mappings: readonly Mapping[];
  /**
   * Operand-tree forwarding: per statement name, the instructions (operands first) it recomputes
   * instead of reading them as scalars; their scalar reads (and unread writes) are gone from `model`.
   */
  readonly forwardedTrees: ReadonlyMap<string, readonly Instruction[]>;
  /** Why the SCoP was left unchanged (quota), if it was. */
  readonly unchanged: string | undefined;
  /** Why each mapping coalescing tried was refused (for the debug log). */
  readonly rejections: readonly string[];
}

export interface DelicmOptions {
  /** isl operations allowed for this SCoP (0: no limit). */
  readonly maxOperations: number;
  /** The SCoP's scalar writes in loops when the caller counted them outside the quota. */
  readonly scalarWritesBefore?: number;
  /** Only these scalar locations (`MemRef_v81__phi`) may be mapped onto arrays; the others stay scalars (forwarding and reloads still run). Default: all. */
  readonly onlyLocations?: ReadonlySet<string>;
}

export const defaultDelicmMaxOperations = 5_000_000;

/**
 * Scalar writes inside loops: what the paper's tables count. A write is inside a loop when it
 * runs in more than one iteration of the loops around it (for some parameters). Polly counts
 * every scalar write of a statement in a loop; the difference is a write simplify left only
 * in its last instance (a value the code after the SCoP reads, written in every iteration
 * originally): it runs once, after the loop's other iterations, and no loop carries it.
 */
export function scalarWritesInLoops(model: ScopModel): number {
  return model.ctx.scope(() => {
    let n = 0;
    for (const s of model.statements) {
      if (s.loops.length === 0) continue;
      for (const a of s.accesses) {
        if (a.kind !== 'write' || a.array.kind === 'array') continue;
        // [params] -> { Stmt[i..] }: the instances that write
        const instances = a.relation.intersectDomain(s.domain).domain().intersectParams(model.context);
        if (!instances.isSubset(instances.lexmax())) n++;
      }
    }
    return n;
  });
}

/**
 * The SCoP left as it was, with `reason` (undefined: nothing to do). `before` is the SCoP's count of
 * scalar writes in loops when the caller has it: counting asks isl, which fails when a spent quota
 * is why the SCoP is left unchanged.
 */
export function unchangedDelicm(model: ScopModel, reason: string | undefined, before = scalarWritesInLoops(model)): DelicmScopResult {
  return {
    original: model,
    model,
    mappings: [],
    forwardedTrees: new Map(),
    unchanged: reason,
    rejections: [],
    counters: { forwards: 0, reloads: 0, mappedScalars: 0, mappedPhis: 0, scalarWritesBefore: before, scalarWritesAfter: before },
  };
}

export function runDelicm(model: ScopModel, options: DelicmOptions): DelicmScopResult {
  const ctx = model.ctx;
  const before = options.scalarWritesBefore ?? scalarWritesInLoops(model);
  let rejections: readonly string[] = [];
  const unchanged = (reason: string | undefined): DelicmScopResult => ({ ...unchangedDelicm(model, reason, before), rejections });
  // Nothing to gain where no scalar is written inside a loop: no scalar dependence is carried.
  if (before === 0) return unchanged(undefined);
  try {
    const run = (): DelicmScopResult => ctx.scope(() => {
      const knowledge = buildKnowledge(ctx, model);
      const forwarding = forwardOperandTrees(knowledge);
      const reloading = reloadKnownContent(knowledge);
      // Locations left out count as taken already: coalescing maps none of them.
      const left = options.onlyLocations ? model.arrays.filter((a) => a.kind !== 'array' && !options.onlyLocations!.has(a.tupleName)).map((a) => a.tupleName) : [];
      const { mappings } = coalesce(knowledge, new Set([...forwarding.locations, ...reloading.locations, ...left]));
      rejections = knowledge.rejections;
      // A write trimmed of its dead instances changes the model only where it is mapped (rebuild).
      if (mappings.length === 0 && forwarding.forwards === 0 && reloading.reloads === 0) return unchanged(undefined);
      const transformed = rebuild(ctx, model, knowledge.events);
      return {
        original: model,
        model: transformed,
        mappings,
        forwardedTrees: forwarding.trees,
        unchanged: undefined,
        rejections,
        counters: {
          forwards: forwarding.forwards,
          reloads: reloading.reloads,
          mappedScalars: mappings.filter((m) => m.kind === 'value').length,
          mappedPhis: mappings.filter((m) => m.kind === 'phi').length,
          scalarWritesBefore: before,
          scalarWritesAfter: scalarWritesInLoops(transformed),
        },
      };
    });
    return options.maxOperations > 0 ? ctx.withMaxOperations(options.maxOperations, run) : run();
  } catch (e) {
    if (e instanceof IslQuotaError) return unchanged(`isl operations quota (${options.maxOperations}) exceeded: ${e.message}`);
    // Past the quota some isl calls fail with their own message (the parser says "syntax error").
    if (e instanceof IslError && options.maxOperations > 0) return unchanged(`isl operations quota (${options.maxOperations}) exceeded or isl failed: ${e.message}`);
    throw e;
  }
}

/** The model with mapped accesses as array accesses, and its dependences recomputed. Every isl object is kept in the context. */
function rebuild(ctx: Ctx, model: ScopModel, events: readonly AccessEvent[]): ScopModel {
  const byArray = new Map(model.arrays.map((a) => [a.tupleName, a] as const));
  const eventOf = new Map(events.map((e) => [e.access, e] as const));
  const statements: ScopStatementModel[] = model.statements.map((s) => {
    const kept = s.accesses.filter((a) => !eventOf.get(a)!.removed);
    const accesses: ScopAccess[] = simplify(s, kept.map((a) => {
      const e = eventOf.get(a)!;
      // A scalar left in its location keeps its access whole, dead instances included: the fast path
      // writes its slot in every instance of the statement (codegen/versioning.ts), so a schedule
      // may not put a dead write between a live one and its read, nor after the last one (the value
      // the code after the SCoP reads). Only a mapped write stores just its live instances.
      if (e.location === a.array.tupleName) return a;
      // [params] -> { Stmt[i..] -> MemRef_A[o..] }
      const relation = e.relation.setTupleName(DimType.in, s.name).keep();
      // A forwarded read standing for its tree's load: the mapped read gives the load's value.
      const scalar = e.standsFor && a.scalar ? { ...a.scalar, value: e.standsFor } : a.scalar;
      return { ...a, array: byArray.get(e.location)!, relation, instruction: undefined, scalar };
    }));
    return { ...s, accesses };
  });
  const used = new Set(statements.flatMap((s) => s.accesses.map((a) => a.array)));
  const union = (pick: (a: ScopAccess) => boolean) => {
    let u = model.schedule.subtract(model.schedule);
    for (const s of statements) for (const a of s.accesses) if (pick(a)) u = u.union(a.relation.intersectDomain(s.domain).toUnionMap());
    return u.keep();
  };
  const dependences = computeDependences(ctx, {
    statements, loops: model.loops, schedule: model.schedule, assumedContext: model.assumedContext,
    // The exact relations, computed when print<delicm> or a test reads them: charged to DeLICM.
    later: (exact) => model.budget.run(ctx, 'delicm', 0, exact),
  });
  return {
    ...model,
    statements,
    arrays: model.arrays.filter((a) => a.kind === 'array' || used.has(a)),
    reads: union((a) => a.kind === 'read'),
    mustWrites: union((a) => a.kind === 'write' && a.certainty === 'must'),
    mayWrites: union((a) => a.kind === 'write' && a.certainty === 'may'),
    dependences,
  };
}

/**
 * Simplify (besides what coalescing removed), on the mapped writes of one statement (scalar
 * writes run last, in order, nothing read in between):
 *   - a mapped write a later one overwrites (the same element in every instance) is dead;
 *   - two consecutive mapped writes of the same value to the same array (no other write of that
 *     array between them) are one write of their instances together, when that still names one
 *     element per instance: the PHI writes -O3 leaves for a loop's back edge and its exit, which
 *     simplify cut to the iterations each feeds, are again one write of every iteration.
 */
/** The same SSA value, or constants that print the same. */
function sameValue(a: Value | undefined, b: Value | undefined): boolean {
  return a !== undefined && b !== undefined && (a === b || (a.kind.startsWith('const-') && a.kind === b.kind && printValue(a) === printValue(b)));
}

function simplify(s: ScopStatementModel, accesses: ScopAccess[]): ScopAccess[] {
  const mappedWrite = (a: ScopAccess): boolean => a.kind === 'write' && a.scalar !== undefined && a.array.kind === 'array';
  const domain = s.domain;
  const out = [...accesses];
  for (let k = 0; k < out.length; k++) {
    const a = out[k]!;
    if (!mappedWrite(a)) continue;
    const next = out.findIndex((b, j) => j > k && mappedWrite(b) && b.array === a.array);
    if (next < 0) continue;
    const b = out[next]!;
    // [params] -> { Stmt[i..] -> MemRef_A[o..] }
    const overwritten = b.relation.intersectDomain(domain).isEqual(a.relation.intersectDomain(domain));
    const together = !overwritten && sameValue(storedValue(a), storedValue(b)) ? a.relation.union(b.relation).coalesce() : undefined;
    if (!overwritten && !(together && together.intersectDomain(domain).isSingleValued())) continue;
    if (together) out[next] = { ...b, relation: together.keep() };
    out.splice(k--, 1);
  }
  return out;
}

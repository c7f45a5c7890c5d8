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
import { type Ctx, DimType, type Map as IslMap, type UnionMap, UnionAccessInfo } from 'isl-wasm';
import { type Instruction, type Value, printValue } from '../../ir';
import type { ScopAccess, ScopModel, ScopStatementModel } from '../model';

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
  /** [params] -> { WriteTag[i..] -> ReadTag[i'..] }: the last write before each read, same location (original program). */
  readonly reaching: UnionMap;
  /** Arrays some statement may write (over-approximated): never a mapping target. */
  readonly mayWritten: ReadonlySet<string>;
  /** { [t.., p] -> [t'.., p'] : t <=lex t' }: a statement instance at or before another (phases ignored) */
  readonly notBeforeInstance: UnionMap;
  /** { [t.., p] -> [t'.., p'] : t <lex t' }: a statement instance strictly before another */
  readonly beforeInstance: UnionMap;
  /** Per array: the SCoP's end as a read of what the SCoP writes, and the values it sees originally (filled on demand). */
  readonly liveOut: Map<string, { end: AccessEvent; value: UnionMap }>;
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

function dims(n: number, prefix = 'i'): string {
  return Array.from({ length: n }, (_, k) => `${prefix}${k}`).join(', ');
}

/** undef and poison: any value will do where they are read. */
export function isUndef(v: Value | undefined): boolean {
  return v !== undefined && (v.kind === 'undef' || v.kind === 'poison');
}

/** A write of undef to a mapped location need not happen at all. */
export function writesUndef(a: ScopAccess): boolean {
  return isUndef(storedValue(a));
}

/** { [a..] -> [b..] : a <lex b } over `n` dimensions, followed by `extra` unconstrained ones. */
export function lexBeforeText(n: number, extra = 0): string {
  const pieces: string[] = [];
  for (let k = 0; k < n; k++) {
    const eq = Array.from({ length: k }, (_, d) => `a${d} = b${d}`);
    pieces.push([...eq, `a${k} < b${k}`].join(' and '));
  }
  const tail = (p: string) => Array.from({ length: extra }, (_, k) => `, ${p}${n + k}`).join('');
  return `{ [${dims(n, 'a')}${tail('a')}] -> [${dims(n, 'b')}${tail('b')}] : ${pieces.map((p) => `(${p})`).join(' or ')} }`;
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
    const scheduleText = s.schedule.toString();
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
      const time = ctx.map(retag(scheduleText, s.name, tag).replace(/\]\s*\}\s*$/, `, ${phase}] }`)).intersectDomain(domain).coalesce();
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
    void n;
  }

  // [params] -> { WriteTag[i..] -> Value[..] } before pass-throughs are resolved
  const opaque = (e: AccessEvent): IslMap => {
    const s = e.statement;
    const n = s.loops.length;
    const v = storedValue(e.access);
    const inside = v !== undefined && v.kind === 'instruction' && (v as Instruction).parent !== undefined && scopBlocks.has((v as Instruction).parent!);
    if (isUndef(v)) return ctx.map(`{ ${e.tag}[${dims(n)}] -> Undef[] }`).intersectDomain(e.relation.domain());
    const text = v === undefined || inside
      ? `{ ${e.tag}[${dims(n)}] -> V${v === undefined ? `w${events.indexOf(e)}` : idOf(v)}_${s.name}[${dims(n)}] }`
      : `{ ${e.tag}[${dims(n)}] -> C${idOf(v)}[] }`;
    return ctx.map(text).intersectDomain(e.relation.domain());
  };
  const writes = events.filter((e) => e.kind === 'write' && !(e.access.certainty === 'may'));
  const reads = events.filter((e) => e.kind === 'read');
  const beforeInstance = ctx.unionMap(lexBeforeText(timeDims - 1, 1));
  const notBeforeInstance = beforeInstance.union(ctx.unionMap(`{ [${dims(timeDims, 'a')}] -> [${dims(timeDims - 1, 'a')}, p] }`));
  const reaching = flow(ctx, reads, writes).dependence;

  let writeValue = unionOf(ctx, writes.map(opaque));
  let readValue = readValues(ctx, reaching, writeValue, reads);
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
      const same = ctx.unionMap(`{ ${w.tag}[${dims(n)}] -> ${w.passThrough.tag}[${dims(n)}] }`).intersectDomain(w.relation.domain().toUnionSet());
      const resolved = same.applyRange(readValue);
      const complete = resolved.domain().isEqual(w.relation.domain().toUnionSet()) && resolved.isSingleValued();
      next = next.union(complete ? resolved : opaque(w).toUnionMap());
    }
    writeValue = next;
    readValue = readValues(ctx, reaching, writeValue, reads);
  }
  return { ctx, model, events, timeDims, writeValue, readValue, reaching, mayWritten, notBeforeInstance, beforeInstance, liveOut: new Map(), rejections: [] };
}

/** Renames statement `name`'s tuple in isl text to `tag`. */
function retag(text: string, name: string, tag: string): string {
  return text.replace(new RegExp(`\\b${name}\\[`, 'g'), `${tag}[`);
}

export function unionOf(ctx: Ctx, maps: readonly (IslMap | UnionMap)[]): UnionMap {
  let u = ctx.unionMap('{ }');
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

/** { ReadTag[..] -> Value[..] }: the reaching write's value, or the location's initial content. */
export function readValues(ctx: Ctx, reaching: UnionMap, writeValue: UnionMap, reads: readonly AccessEvent[]): UnionMap {
  const readSet = unionOf(ctx, reads.map((e) => e.relation)).domain();
  const fromWrites = reaching.reverse().applyRange(writeValue);
  // Reads no write reaches see the location's content at the SCoP's entry: the location itself names it.
  const all = unionOf(ctx, reads.map((e) => e.relation));
  const reached = reaching.range();
  return fromWrites.union(all.subtractDomain(reached)).intersectDomain(readSet);
}

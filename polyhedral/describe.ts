// Phase one of building the model: the SCoP as isl text. Every expression goes
// through `ScevTranslator`; what the translation assumes (no wrap, signs, bounds)
// is collected as checks that `assumptions.ts` turns into parameter sets.
import type { BasicBlock, Instruction, IrFunction, Module, Type, Value } from '../ir';
import { debugLocation } from '../ir';
import { localNames } from '../analysis/value-names';
import type { FunctionAnalysisManager } from '../analysis/analysis-manager';
import type { ScopBudget } from './budget';
import { allocSize } from '../analysis/scalar-evolution';
import { type Scev, type ScevLoop, type ScevUnknown, ScevKind, loopsOf, unknownsOf } from '../analysis/scev';
import type { Scop, ScopCondition, ScopLoop, ScopMemoryAccess, ScopRejection, ScopStatement } from '../analysis/scop-detection-types';
import { type IndexExpression, type IslExpression, type Parameter, type RangeCheck, NonAffineError, ParameterTable, ScevTranslator, signedMax, signedMin } from './affine';
import type { ArrayKind, AssumptionKind, ScopArray } from './model';
import { arrayName, debugValueNames, islIdentifier, parameterName, sourceName, UniqueNames } from './isl-names';
import { originalSchedule, scheduleShape, type ScheduleShape, type TimeDim } from './schedule';
import type { CastSeenThrough } from '../analysis/polynomial';
import { castRangeViolations } from './cast-ranges';

/** What delinearization recovered for one base pointer. */
export interface ArrayShape {
  /** Sizes of the dimensions after the outermost, in elements, outermost first. */
  readonly sizes: readonly IndexExpression[];
  /** Each access's subscripts (outermost first, in elements), by load/store. */
  readonly subscripts: ReadonlyMap<Instruction, readonly IndexExpression[]>;
  /**
   * Casts of varying values each access's subscripts were read through: the model
   * assumes their operands stay in range (`no-wrap`, see cast-ranges.ts).
   */
  readonly casts?: ReadonlyMap<Instruction, readonly CastSeenThrough[]>;
}

/**
 * The hook where delinearization plugs in: per base pointer, a shape and each
 * access's subscripts. The model turns them into multi-dimensional access
 * relations and adds their validity (0 <= subscript < size in every inner
 * dimension, over the domain) as a `delinearization` assumption. The model passes
 * the analysis manager it is built with, so a delinearizer can share cached results,
 * and the SCoP's isl budget, which a delinearizer spends from (its 'delinearization' step).
 */
export type Delinearizer = (scop: Scop, am?: FunctionAnalysisManager, budget?: ScopBudget) => ReadonlyMap<Value, ArrayShape>;

/** Ranges of values known wherever the SCoP's entry runs (scalar evolution's facts from dominating branches). */
export type EntryFacts = ReadonlyMap<Scev, { readonly lo: bigint; readonly hi: bigint }>;

/** A SCoP the model could not be built for, as a rejection for the report. */
export class ModelError extends Error {
  constructor(readonly rejectionCause: ScopRejection['cause'], message: string) {
    super(message);
  }
}

export interface DescribeOptions {
  readonly delinearize?: Delinearizer;
  /**
   * Use delinearized shapes whose subscripts read casts through (default true). The model
   * turns it off when their no-wrap condition contradicts the context: those arrays stay
   * linear, as without the casts read.
   */
  readonly readCasts?: boolean;
}

export interface CheckText {
  /** The tuple the violation is stated on: `Stmt_S[i0, ...]` or `[i0, ...]` for a loop. */
  readonly tuple: string;
  /**
   * The set the check must hold on, without parameters: a statement's domain
   * `{ Stmt_S[i0..] : ... }`, or a loop whose iterations (the statements' domains
   * projected onto its counters `[i0..ik]`) it must hold in.
   */
  readonly where: string | ScopLoop;
  /** The violation as an isl constraint over `tuple` and the parameters. */
  readonly violation: string;
  readonly kind: AssumptionKind;
}

interface AccessText {
  readonly kind: 'read' | 'write';
  readonly certainty: 'must' | 'may';
  readonly array: ScopArray;
  readonly instruction: Instruction | undefined;
  readonly scalar: ScopStatement['scalars'][number] | undefined;
  readonly relation: string;
  readonly approximation: string | undefined;
}

interface StatementText {
  readonly source: ScopStatement;
  readonly name: string;
  readonly domain: string;
  /** The 2D+1 schedule's dimensions (`timeMap` builds the map on the domain). */
  readonly schedule: readonly TimeDim[];
  readonly accesses: AccessText[];
}

/**
 * An access whose relation text waits for the names of the array's dimensions:
 * they must differ from every parameter (set_subarray has parameters `o0, o1, o2`),
 * and the parameters are known only once every statement is translated.
 */
type PendingAccess = Omit<AccessText, 'relation'> & { readonly relation: (dimension: (k: number) => string) => string };

export interface ScopText {
  readonly parameters: readonly Parameter[];
  readonly paramPrefix: string;
  readonly context: string;
  readonly statements: readonly StatementText[];
  readonly arrays: readonly ScopArray[];
  readonly checks: readonly CheckText[];
  /** The loop/statement tree the model's schedule tree is built from. */
  readonly scheduleShape: ScheduleShape;
  readonly loopLabels: Map<ScopLoop, string>;
  /** True when some array's subscripts read a cast through (their no-wrap condition is among the checks). */
  readonly readsCasts: boolean;
}

const predicateText: Record<ScopCondition['predicate'], string> = {
  eq: '=', ne: '!=', slt: '<', sle: '<=', sgt: '>', sge: '>=', ult: '<', ule: '<=', ugt: '>', uge: '>=',
};

export function describeScop(module: Module, fn: IrFunction, scop: Scop, options: DescribeOptions, entryFacts: EntryFacts = new Map()): ScopText {
  const debugNames = debugValueNames(fn, module);
  // `%57` for unnamed values, as LLVM prints them: scalars are named after it (`MemRef_v57`).
  const irNames = localNames(fn);
  const blockSet = new Set(scop.blocks);
  const wanted = (v: Value, fallback: string): string => sourceName(v, debugNames) ?? fallback;
  const params = new ParameterTable(
    (u: ScevUnknown) => parameterName(u.value as Value, u.name, debugNames),
    (u: ScevUnknown) => {
      const v = u.value as Value;
      return !(v.kind === 'instruction' && v.parent !== undefined && blockSet.has(v.parent));
    },
  );
  const checks: CheckText[] = [];
  const checkKeys = new Set<string>();
  const addViolation: AddViolation = (tuple, where, violation, kind) => {
    // Unrolled copies of a statement repeat the same checks: isl sees each once.
    const key = `${kind}|${typeof where === 'string' ? where : `loop ${where.loop.id}`}|${violation}`;
    if (checkKeys.has(key)) return;
    checkKeys.add(key);
    checks.push({ tuple, where, violation, kind });
  };
  const addChecks: AddChecks = (tuple, where, found, kind) => {
    for (const c of found) {
      // 64-bit arithmetic is assumed not to wrap (as in Polly): such checks would only cost isl time.
      if (c.min <= signedMin(64) && c.max >= signedMax(64)) continue;
      // A parameter alone is within its type by the context.
      const param = params.list.find((x) => x.name === c.text);
      if (param && c.min <= signedMin(param.bits) && c.max >= signedMax(param.bits)) continue;
      addViolation(tuple, where, `${c.text} < ${c.min} or ${c.text} > ${c.max}`, kind ?? c.kind);
    }
  };

  // Loops: the box of counters of each loop and its outer loops, and "bounds within their types".
  const loopLabels = new Map<ScopLoop, string>();
  for (const loop of scop.loops) {
    const chain = loopChain(loop);
    const tr = translatorFor(params, chain);
    const tuple = `[${counters(chain.length)}]`;
    const where = loop;
    const lhs = tr.translate(loop.continueCondition.lhs);
    const rhs = tr.translate(loop.continueCondition.rhs);
    const bits = loop.continueCondition.lhs.bits;
    addChecks(tuple, where, [...lhs.checks, ...rhs.checks], 'loop-bound');
    addChecks(tuple, where, [
      { text: lhs.text, min: signedMin(bits), max: signedMax(bits), kind: 'no-wrap', expression: '' },
      { text: rhs.text, min: signedMin(bits), max: signedMax(bits), kind: 'no-wrap', expression: '' },
    ], 'loop-bound');
    loopLabels.set(loop, loopLabel(module, loop));
  }
  const seen = new Map<string, number>();
  for (const label of loopLabels.values()) seen.set(label, (seen.get(label) ?? 0) + 1);
  for (const [loop, label] of loopLabels) if (seen.get(label)! > 1 && label !== loop.loop.headerName) loopLabels.set(loop, `${label} (${loop.loop.headerName})`);

  // Error edges: no iteration may take one (the run-time check's 'error-block' part).
  (scop.errorBlocks ?? []).forEach((e, k) => {
    const tr = translatorFor(params, e.loops);
    const tuple = `ErrorEdge${k}[${counters(e.loops.length)}]`;
    const box = boxText(tr, e.loops);
    const found: RangeCheck[] = [...tr.lastChecks];
    const conditionChecks: RangeCheck[] = [];
    const conditions = dnfText(tr, e.domain, conditionChecks);
    const where = `{ ${tuple} : ${conditions === undefined ? box : `${box} and (${conditions})`} }`;
    addChecks(tuple, where, [...found, ...conditionChecks.filter((c) => c.kind !== 'unsigned')]);
    // An unsigned comparison's operands are read as signed values: that must hold wherever the
    // branch may run, not only where it would take the edge, so over the loops' whole box.
    addChecks(tuple, `{ ${tuple} : ${box} }`, conditionChecks.filter((c) => c.kind === 'unsigned'));
    addViolation(tuple, where, 'true', 'error-block');
  });

  // Arrays, then statements.
  const arrayNames = new UniqueNames();
  const shapes = options.delinearize?.(scop) ?? new Map<Value, ArrayShape>();
  const arrays = new Map<Value, ScopArray>();
  const arrayList: ScopArray[] = [];
  const valueArrays = new Map<Instruction, ScopArray>();
  const phiArrays = new Map<Instruction, ScopArray>();
  const layout = new Map<Value, 'flat' | 'ir' | 'delinearized'>();
  const castChecks = new Map<Instruction, CastChecks>();
  for (const a of scop.arrays) {
    const accesses = scop.statements.flatMap((s) => s.accesses).filter((x) => x.base === a.base);
    const shape = shapes.get(a.base);
    let sizes: readonly IndexExpression[] = [];
    let how: 'flat' | 'ir' | 'delinearized' = 'flat';
    if (shape && accesses.every((x) => shape.subscripts.get(x.instruction)?.length === shape.sizes.length + 1) && castsStatable(scop, shape, params, castChecks, options.readCasts ?? true)) {
      sizes = shape.sizes;
      how = 'delinearized';
    } else if (accesses.length > 0 && accesses.every((x) => x.subscripts !== undefined && x.dimensionSizes !== undefined && sameSizes(x.dimensionSizes, accesses[0]!.dimensionSizes!))) {
      sizes = accesses[0]!.dimensionSizes!;
      how = 'ir';
    }
    layout.set(a.base, how);
    const name = arrayName(a.base, a.name, debugNames);
    const sizeTr = new ScevTranslator(params, () => undefined);
    const shapeText = sizes.map((s) => stripParens(sizeTr.translate(s).text));
    const array: ScopArray = {
      tupleName: arrayNames.take('MemRef_' + islIdentifier(name)),
      name,
      kind: 'array',
      value: a.base,
      elementBytes: a.elementBytes,
      sizes,
      shape: [outermostSize(a.base, how === 'ir' ? sizes.length : -1), ...shapeText],
      delinearized: how === 'delinearized',
    };
    arrays.set(a.base, array);
    arrayList.push(array);
  }
  const scalarArray = (value: Instruction, kind: ArrayKind): ScopArray => {
    const key = kind === 'phi' ? phiArrays : valueArrays;
    let array = key.get(value);
    if (!array) {
      const name = wanted(value, irNames.get(value) ?? '%v');
      array = {
        tupleName: arrayNames.take(`MemRef_${islIdentifier(name, 'v')}${kind === 'phi' ? '__phi' : ''}`),
        name,
        kind,
        value,
        elementBytes: allocSize(value.type),
        sizes: [],
        shape: [],
        delinearized: false,
      };
      key.set(value, array);
      arrayList.push(array);
    }
    return array;
  };

  const statementNames = new UniqueNames();
  const pending: { statement: Omit<StatementText, 'accesses'>; accesses: PendingAccess[] }[] = [];
  for (const st of scop.statements) {
    const name = statementNames.take(islIdentifier(st.name.startsWith('Stmt_') ? st.name : `Stmt_${st.name}`));
    const tr = translatorFor(params, st.loops);
    const tuple = `${name}[${counters(st.loops.length)}]`;
    const box = boxText(tr, st.loops);
    const boxChecks: RangeCheck[] = [...tr.lastChecks];
    const conditions = dnfText(tr, st.domain, boxChecks);
    const domainBody = conditions === undefined ? box : `${box} and (${conditions})`;
    const where = `{ ${tuple} : ${domainBody} }`;
    // Bounds and conditions must evaluate right wherever the statement runs. (Where a
    // condition is false its operands are not checked: a wrapped operand that turns a
    // false condition true is not caught. Polly has the same gap.)
    addChecks(tuple, where, boxChecks);
    const accesses: PendingAccess[] = [];
    for (const acc of st.accesses) {
      const array = arrays.get(acc.base);
      if (!array) throw new ModelError('other', `access to ${acc.baseName} whose base the SCoP does not list`);
      const casts = layout.get(acc.base) === 'delinearized' ? castChecks.get(acc.instruction) : undefined;
      if (casts) {
        // The subscripts read casts through: exact where their operands do not wrap.
        addChecks(tuple, where, casts.checks);
        for (const v of casts.violations) addViolation(tuple, where, v, 'no-wrap');
      }
      accesses.push(arrayAccess(tr, tuple, where, acc, array, layout.get(acc.base)!, shapes.get(acc.base), addChecks, addViolation));
    }
    for (const sc of st.scalars) {
      const array = scalarArray(sc.value, sc.kind);
      accesses.push({ kind: sc.access, certainty: 'must', array, instruction: undefined, scalar: sc, relation: () => `{ ${tuple} -> ${array.tupleName}[] }`, approximation: undefined });
    }
    pending.push({ statement: { source: st, name, domain: `{ ${where.slice(2)}`, schedule: [] }, accesses });
  }
  // Array dimensions `o0, o1, …` unless a parameter has that name; then isl's own way out, a prime (`o0'`).
  const parameterNames = new Set(params.list.map((p) => p.name));
  const dimension = (k: number): string => (parameterNames.has(`o${k}`) ? `o${k}'` : `o${k}`);
  const statements: StatementText[] = pending.map(({ statement, accesses }) => ({
    ...statement,
    accesses: accesses.map((a) => ({ ...a, relation: a.relation(dimension) })),
  }));

  // Schedule, once all statement names are known.
  const rpo = new Map<BasicBlock, number>(scop.blocks.map((b, k) => [b, k]));
  const scheduled = statements.map((s) => ({ name: s.name, block: s.source.block, loops: s.source.loops }));
  const schedules = originalSchedule(scheduled, rpo);
  const withSchedule = statements.map((s) => ({ ...s, schedule: schedules.statements.get(s.name)! }));

  const parameters = params.list;
  const paramPrefix = `[${parameters.map((p) => p.name).join(', ')}] -> `;
  // An iteration number of a loop around the SCoP (delinearization's `{0,+,1}<loop>`) counts from 0.
  const iterationNumber = (p: Parameter): boolean => p.expression.kind === ScevKind.AddRec && p.expression.id < 0;
  const contextParts = parameters.map((p) => `${iterationNumber(p) ? 0n : signedMin(p.bits)} <= ${p.name} <= ${signedMax(p.bits)}`);
  contextParts.push(...parameters.flatMap((p) => congruence(p) ?? []));
  contextParts.push(...entryConstraints(params, entryFacts));
  const context = `${paramPrefix}{ : ${contextParts.length === 0 ? 'true' : contextParts.join(' and ')} }`;
  return {
    parameters,
    paramPrefix,
    context,
    statements: withSchedule,
    arrays: arrayList,
    checks,
    scheduleShape: scheduleShape(scheduled, rpo),
    loopLabels,
    readsCasts: [...castChecks.keys()].some((inst) => statements.some((s) => s.accesses.some((a) => a.instruction === inst && a.array.delinearized))),
  };
}

/**
 * `(p - a) mod g = 0` for a parameter standing for a recurrence {a,+,b}<L> of a loop around
 * the SCoP (a and b constants; g the largest power of two dividing b): every value it takes
 * is a plus a multiple of b, also where it wraps, since g divides 2^bits. A byte offset
 * {0,+,8}<L> of a double array is then a whole element: `8 * o0 = p` names one element.
 */
function congruence(p: Parameter): string | undefined {
  const e = p.expression;
  if (e.kind !== ScevKind.AddRec || e.operands.length !== 2) return undefined;
  const [start, step] = e.operands as [Scev, Scev];
  if (start.kind !== ScevKind.Constant || step.kind !== ScevKind.Constant || step.value === 0n) return undefined;
  let g = 1n;
  for (let b = step.value < 0n ? -step.value : step.value; b % 2n === 0n && g < 1n << BigInt(p.bits); b /= 2n) g *= 2n;
  return g === 1n ? undefined : `(${p.name} - ${start.value}) mod ${g} = 0`;
}

/**
 * What the branches before the SCoP say about its parameters (Polly bounds its context
 * with scalar evolution's ranges the same way): `1 <= n` when the SCoP sits inside
 * `if (n > 0)`. Only facts on expressions over existing parameters whose translation is
 * exact (no wrap or sign assumption) count; a fact on `zext(n)` says nothing about `n`.
 */
function entryConstraints(params: ParameterTable, facts: EntryFacts): string[] {
  const out: string[] = [];
  const tr = new ScevTranslator(params, () => undefined);
  for (const [expr, range] of facts) {
    if (loopsOf(expr).length > 0 || unknownsOf(expr).some((u) => params.find(u) === undefined)) continue;
    let text: string;
    try {
      const t = tr.translate(expr);
      if (t.checks.length > 0) continue;
      text = t.text;
    } catch (e) {
      if (e instanceof NonAffineError) continue;
      throw e;
    }
    const bits = expr.bits;
    if (range.lo > signedMin(bits)) out.push(`${text} >= ${range.lo}`);
    if (range.hi < signedMax(bits)) out.push(`${text} <= ${range.hi}`);
  }
  return out;
}

/** Loop and its enclosing SCoP loops, outermost first. */
function loopChain(loop: ScopLoop): ScopLoop[] {
  const chain: ScopLoop[] = [];
  for (let l: ScopLoop | undefined = loop; l; l = l.parent) chain.unshift(l);
  return chain;
}

export function counters(n: number): string {
  return Array.from({ length: n }, (_, k) => `i${k}`).join(', ');
}

class StatementTranslator {
  lastChecks: RangeCheck[] = [];
  constructor(private readonly inner: ScevTranslator) {}
  translate(e: IndexExpression): IslExpression {
    const r = this.inner.translate(e);
    this.lastChecks.push(...r.checks);
    return r;
  }
}

function translatorFor(params: ParameterTable, loops: readonly ScopLoop[]): StatementTranslator {
  const byId = new Map<number, string>(loops.map((l, k) => [l.loop.id, `i${k}`]));
  return new StatementTranslator(new ScevTranslator(params, (loop: ScevLoop) => byId.get(loop.id)));
}

/** The no-wrap violations of the casts an access's subscripts read through, and the checks their translation needs. */
interface CastChecks {
  readonly violations: readonly string[];
  readonly checks: readonly RangeCheck[];
}

/**
 * True when every cast the shape's subscripts read through has a no-wrap condition
 * we can state (then in `out` by access); else the array is not used delinearized.
 */
function castsStatable(scop: Scop, shape: ArrayShape, params: ParameterTable, out: Map<Instruction, CastChecks>, readCasts: boolean): boolean {
  const found = new Map<Instruction, CastChecks>();
  for (const st of scop.statements) {
    for (const acc of st.accesses) {
      const casts = shape.casts?.get(acc.instruction);
      if (!casts) continue;
      if (!readCasts) return false;
      const tr = translatorFor(params, st.loops);
      tr.lastChecks = [];
      const translate = (e: Scev): IslExpression => tr.translate(e);
      const violations: string[] = [];
      for (const cast of casts) {
        let v: string[] | undefined;
        try {
          v = castRangeViolations(cast, st.loops, params, translate);
        } catch (e) {
          if (!(e instanceof NonAffineError)) throw e;
        }
        if (v === undefined) return false;
        violations.push(...v);
      }
      found.set(acc.instruction, { violations, checks: tr.lastChecks });
    }
  }
  for (const [k, v] of found) out.set(k, v);
  return true;
}

/** `0 <= i0 <= btc0 and 0 <= i1 <= btc1 ...` (`true` without loops). */
function boxText(tr: StatementTranslator, loops: readonly ScopLoop[]): string {
  if (loops.length === 0) return 'true';
  return loops.map((l, k) => `0 <= i${k} <= ${tr.translate(l.backedgeTakenCount).text}`).join(' and ');
}

/** The DNF as isl text, or undefined for "always"; checks of its operands go to `checks`. */
function dnfText(tr: StatementTranslator, dnf: ScopStatement['domain'], checks: RangeCheck[]): string | undefined {
  if (dnf.length === 0) return 'false';
  if (dnf.some((conj) => conj.length === 0)) return undefined;
  const before = tr.lastChecks.length;
  const text = dnf.map((conj) => '(' + conj.map((c) => conditionText(tr, c)).join(' and ') + ')').join(' or ');
  checks.push(...tr.lastChecks.slice(before));
  return text;
}

function conditionText(tr: StatementTranslator, c: ScopCondition): string {
  const lhs = tr.translate(c.lhs);
  const rhs = tr.translate(c.rhs);
  if (c.predicate.startsWith('u')) {
    // Unsigned comparison of values we read as signed: right when both are non-negative.
    for (const [side, e] of [[lhs, c.lhs], [rhs, c.rhs]] as const) {
      tr.lastChecks.push({ text: side.text, min: 0n, max: signedMax(e.bits), kind: 'unsigned', expression: '' });
    }
  }
  return `${lhs.text} ${predicateText[c.predicate]} ${rhs.text}`;
}

type AddChecks = (tuple: string, where: string | ScopLoop, found: readonly RangeCheck[], kind?: AssumptionKind) => void;
type AddViolation = (tuple: string, where: string | ScopLoop, violation: string, kind: AssumptionKind) => void;

function arrayAccess(
  tr: StatementTranslator,
  tuple: string,
  where: string,
  acc: ScopMemoryAccess,
  array: ScopArray,
  how: 'flat' | 'ir' | 'delinearized',
  shape: ArrayShape | undefined,
  addChecks: AddChecks,
  addViolation: AddViolation,
): PendingAccess {
  const base = { kind: acc.kind, array, instruction: acc.instruction, scalar: undefined } as const;
  try {
    tr.lastChecks = [];
    if (how !== 'flat') {
      const subscripts = how === 'delinearized' ? shape!.subscripts.get(acc.instruction)! : acc.subscripts!;
      const subs = subscripts.map((s) => tr.translate(s).text);
      const sizes = array.sizes.map((s) => tr.translate(s).text);
      addChecks(tuple, where, tr.lastChecks);
      // Validity of the shape: every inner subscript stays inside its dimension.
      const kind: AssumptionKind = how === 'delinearized' ? 'delinearization' : 'in-bounds';
      sizes.forEach((size, k) => {
        const sub = subs[k + 1]!;
        addViolation(tuple, where, `${sub} < 0 or ${sub} >= ${size}`, kind);
      });
      const relation = (o: (k: number) => string): string =>
        `{ ${tuple} -> ${array.tupleName}[${subs.map((_, k) => o(k)).join(', ')}] : ${subs.map((s, k) => `${o(k)} = ${s}`).join(' and ')} }`;
      return { ...base, certainty: 'must', relation, approximation: undefined };
    }
    const offset = tr.translate(acc.offset).text;
    addChecks(tuple, where, tr.lastChecks);
    const eb = array.elementBytes;
    const ab = acc.elementBytes;
    // Elements o0 whose bytes [eb*o0, eb*o0 + eb) meet the accessed bytes [offset, offset + ab).
    const relation = (o: (k: number) => string): string =>
      `{ ${tuple} -> ${array.tupleName}[${o(0)}] : ${eb} * ${o(0)} > ${offset} - ${eb} and ${eb} * ${o(0)} < ${offset} + ${ab} }`;
    return { ...base, certainty: 'must', relation, approximation: undefined };
  } catch (e) {
    if (!(e instanceof NonAffineError)) throw e;
    // As Polly without delinearization would have to: the access may touch any element.
    const rank = how === 'flat' ? 1 : array.sizes.length + 1;
    const relation = (o: (k: number) => string): string => `{ ${tuple} -> ${array.tupleName}[${Array.from({ length: rank }, (_, k) => o(k)).join(', ')}] }`;
    return { ...base, certainty: 'may', relation, approximation: e.message };
  }
}

/**
 * The outermost size when the IR knows it (a global or alloca of an array type with as
 * many inner dimensions as the accesses use), else `*`.
 */
function outermostSize(base: Value, innerDimensions: number): string {
  const type = base.kind === 'global' ? base.valueType : base.kind === 'instruction' && base.opcode === 'alloca' ? base.allocatedType : undefined;
  if (type === undefined || type.kind !== 'array' || innerDimensions < 0) return '*';
  let depth = 0;
  for (let t: Type = type.element; t.kind === 'array'; t = t.element) depth++;
  return depth === innerDimensions ? String(type.length) : '*';
}

function sameSizes(a: readonly Scev[], b: readonly Scev[]): boolean {
  return a.length === b.length && a.every((x, k) => x === b[k]);
}

function stripParens(s: string): string {
  return s.startsWith('(') && s.endsWith(')') && balanced(s.slice(1, -1)) ? s.slice(1, -1) : s;
}

function balanced(s: string): boolean {
  let depth = 0;
  for (const ch of s) {
    if (ch === '(') depth++;
    else if (ch === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

/**
 * `file:line` of the loop's back edge (the latch's branch carries the `for` line at -O3),
 * else of its first instruction with a real source line, else the header's IR name.
 * Unrolled copies of one source loop share a line: the caller adds the header to tell
 * them apart.
 */
function loopLabel(module: Module, loop: ScopLoop): string {
  const lineOf = (inst: Instruction | undefined): string | undefined => {
    const loc = inst ? debugLocation(inst, module) : undefined;
    return loc !== undefined && loc.line > 0 ? `${loc.file}:${loc.line}` : undefined;
  };
  const latch = loop.loop.latch;
  const fromLatch = latch ? lineOf(latch.instructions[latch.instructions.length - 1]) : undefined;
  if (fromLatch) return fromLatch;
  for (const b of loop.loop.blocks) {
    for (const inst of b.instructions) {
      const line = lineOf(inst);
      if (line) return line;
    }
  }
  return loop.loop.headerName;
}

// Delinearization of a detected SCoP: from scalar evolution (passes/analysis) to
// our polynomials and isl domains, and back to the analyses' polynomials for
// the polyhedral model (`Delinearizer` in polyhedral/build.ts).
//
// Per statement the counters are named i0, i1, … (outermost SCoP loop first, as
// the model names them); parameters are named by the model's ParameterTable, so
// the conditions read like the model's assumptions.
import { Ctx, IslError, IslQuotaError, type Set as IslSet } from 'isl-wasm';
import type { Instruction, Value } from '../../ir';
import { type Scev, type ScevLoop, type ScevUnknown, NoWrap, ScevKind, printScev, loopsOf, unknownsOf } from '../../analysis/scev';
import { type Atom, type CastSeenThrough, type Polynomial, toPolynomialThroughCasts, addPolynomials, multiplyPolynomials, constantPolynomial } from '../../analysis/polynomial';
import type { Scop, ScopCondition, ScopStatement } from '../../analysis/scop-detection-types';
import { NonAffineError, ParameterTable, ScevTranslator, signedMax, signedMin } from '../affine';
import { arrayName as modelArrayName, debugValueNames, parameterName } from '../isl-names';
import { type Poly, parsePoly, mul, add, constant, polyFromTerms, contentOf, symbol, polyToString } from './poly';
import { type DelinearizationAccess, type DelinearizeOptions, delinearizeArray, mergeConditions, setText, polyToC, defaultMaxOperations, type ArrayDelinearization } from './index';
import type { ConditionStatus } from './validity';

/** What the model takes for one base pointer (polyhedral/build.ts `ArrayShape`). */
export interface ModelArrayShape {
  readonly sizes: readonly Polynomial[];
  readonly subscripts: ReadonlyMap<Instruction, readonly Polynomial[]>;
  /**
   * The casts each access's offset was read through (`sext i32 (n*i + j - 1)` as
   * n*i + j - 1): the subscripts are exact only where their operands stay in range,
   * which the model assumes (`no-wrap`) and the run-time check tests.
   */
  readonly casts: ReadonlyMap<Instruction, readonly CastSeenThrough[]>;
}

/** Plain data for reports and printers; no isl objects survive. */
export interface ArrayReport {
  /** The base pointer, to match the model's arrays (`ScopArray.value`). */
  readonly base: Value;
  readonly name: string;
  readonly elementBytes: number;
  /** `["*", "n1", "n2"]` when delinearized. */
  readonly shape: readonly string[] | undefined;
  readonly method: string | undefined;
  /** One line per access: `write A[i0 + o0][i1 + o1][i2 + o2]` (C over parameters and counters). */
  readonly accesses: readonly string[];
  /** Each access's subscripts by load/store, outermost first (C over parameters and the counters i0, i1, …). */
  readonly subscripts: ReadonlyMap<Instruction, readonly string[]>;
  /** C text; undefined when statically true or not delinearized. */
  readonly condition: string | undefined;
  /** The same in isl's notation (`[n1, s1, o1] -> { : ... }`), for tools that compare sets. */
  readonly conditionIsl: string | undefined;
  /** Why the array stays linear (`no-shape`, `piecewise`, …) with the detail. */
  readonly failure: string | undefined;
  readonly tried: readonly string[];
  /** The casts of varying values the offsets were read through (`(sext i32 … to i64)`); the model assumes they do not wrap. */
  readonly castsRead: readonly string[];
}

export interface ScopDelinearization {
  readonly shapes: ReadonlyMap<Value, ModelArrayShape>;
  readonly arrays: readonly ArrayReport[];
  /** The SCoP's one condition over its parameters (C), undefined when statically true. */
  readonly condition: string | undefined;
  /** The same in isl's notation, undefined when statically true. */
  readonly conditionIsl: string | undefined;
  readonly status: ConditionStatus;
  /** isl operations spent (for the SCoP's budget, polyhedral/budget.ts). */
  readonly islOperations?: number;
}

/** What the context knows besides the parameters' types: unsigned values, and parameters standing for quasi-affine atoms. */
interface ContextFacts {
  readonly nonNegative: Set<string>;
  /** Parameter name → its isl definition over the other parameters. */
  readonly definitions: Map<string, string>;
}

interface StatementInfo {
  readonly statement: ScopStatement;
  /** The iteration number of a loop around the SCoP, as a parameter (undefined for a loop of the SCoP). */
  readonly outerCounter: (loop: ScevLoop) => Scev | undefined;
  readonly tuple: string;
  readonly translator: ScevTranslator;
  readonly counterOf: (loop: ScevLoop) => string | undefined;
  readonly constraints: string[];
  /** Quasi-affine symbols of this statement's offsets: isl text, and the expression they stand for. */
  readonly definitions: Map<string, string>;
  readonly quasi: Map<string, Scev>;
}

const predicateText: Record<ScopCondition['predicate'], string> = {
  eq: '=', ne: '!=', slt: '<', sle: '<=', sgt: '>', sge: '>=', ult: '<', ule: '<=', ugt: '>', uge: '>=',
};

export interface ScopDelinearizeOptions extends DelinearizeOptions {
  /**
   * Ranges known wherever the SCoP's entry runs (scalar evolution's `factsAt(scop.entry)`):
   * `n >= 1` inside `if (n > 0)`. They join the context, so conditions leave them out.
   */
  readonly entryFacts?: ReadonlyMap<Scev, { readonly lo: bigint; readonly hi: bigint }>;
  /**
   * Runs all of the SCoP's delinearization (in its own context) under a quota from outside:
   * the SCoP's isl budget (polyhedral/budget.ts), which the per-shape quotas then nest in.
   * Without it the work is only counted.
   */
  readonly underBudget?: <T>(ctx: Ctx, fn: () => T) => T;
}

/** Delinearizes every base pointer of `scop` that has a polynomial access. */
export function delinearizeScop(scop: Scop, options: ScopDelinearizeOptions = {}): ScopDelinearization {
  // Parameters and arrays are named as the model names them (polyhedral/isl-names.ts): source
  // names from debug info, else IR names. The same values get the same names as long as
  // no two of them want one name (then the suffixes follow each table's order of use).
  const fn = scop.entry.parent;
  const debugNames = fn ? debugValueNames(fn, fn.parent) : new Map<Value, string>();
  const params = new ParameterTable((u: ScevUnknown) => parameterName(u.value as Value, u.name, debugNames), () => true);
  const arrayName = (base: Value, detectedName: string): string => modelArrayName(base, detectedName, debugNames);
  const facts: ContextFacts = { nonNegative: new Set(), definitions: new Map() };
  const outerCounter = outerCounters(scop);
  const statements = scop.statements.map((statement, k) => statementInfo(statement, k, params, facts.nonNegative, outerCounter));
  // Polynomial offsets, and affine ones over a counter of a loop around the SCoP (a
  // parameter for the model, but 8*n*i + 8*j in a row i of adi is the shape [*][n]).
  const inside = new Set<ScevLoop>(scop.loops.map((l) => l.loop));
  const delinearizable = (x: ScopStatement['accesses'][number]): boolean => x.form === 'polynomial' || loopsOf(x.offset).some((l) => !inside.has(l));
  const wanted = scop.arrays.filter((a) => scop.statements.some((s) => s.accesses.some((x) => x.base === a.base && delinearizable(x))));
  // Offsets first: they may add parameters the domains and the context must name.
  const offsets = new Map<Instruction, Poly | string>();
  const casts = new Map<Instruction, CastSeenThrough[]>();
  for (const info of statements) {
    for (const acc of info.statement.accesses) {
      if (!wanted.some((a) => a.base === acc.base)) continue;
      const array = scop.arrays.find((a) => a.base === acc.base)!;
      const seen: CastSeenThrough[] = [];
      offsets.set(acc.instruction, elementOffset(acc.offset, array.elementBytes, info, params, facts, seen));
      if (seen.length > 0) casts.set(acc.instruction, seen);
    }
  }
  const ctx = new Ctx();
  try {
    // Counted from here, for the SCoP's budget; each step below has its own quota, within the budget's when given.
    const bounded = options.underBudget ?? (<T>(c: Ctx, f: () => T): T => c.withMaxOperations(0, f));
    return bounded(ctx, () => ({ ...ctx.scope((): ScopDelinearization => {
      const names = params.list.map((p) => p.name);
      const cOf = new Map(params.list.map((p) => [p.name, p.c]));
      const cName = (n: string): string => cOf.get(n) ?? n;
      const contextParts = params.list.map((p) => `${signedMin(p.bits)} <= ${p.name} <= ${signedMax(p.bits)}`);
      for (const n of facts.nonNegative) contextParts.push(`${n} >= 0`);
      for (const [n, text] of facts.definitions) contextParts.push(`${n} = ${text}`);
      contextParts.push(...entryConstraints(params, options.entryFacts));
      // [params] -> { : each parameter within its type }
      const eliminable = [...facts.definitions.keys()];
      let context: IslSet;
      let domains: IslSet[];
      try {
        context = ctx.set(`[${names.join(', ')}] -> { : ${contextParts.join(' and ') || '1 = 1'} }`);
        // [params] -> { S_k[i0, ...] : loop bounds and branch conditions }
        domains = statements.map((s) => ctx.set(setText(names, s.tuple, s.statement.loops.map((_, d) => `i${d}`), s.constraints)));
      } catch (e) {
        if (!(e instanceof IslError)) throw e;
        const failure = `isl: ${e.message}`;
        const arrays = wanted.map((a) => ({ base: a.base, name: arrayName(a.base, a.name), elementBytes: a.elementBytes, shape: undefined, method: undefined, accesses: [], subscripts: new Map(), condition: undefined, conditionIsl: undefined, failure, tried: [], castsRead: [] }));
        return { shapes: new Map(), arrays, condition: undefined, conditionIsl: undefined, status: 'true' as const };
      }
      const shapes = new Map<Value, ModelArrayShape>();
      const reports: ArrayReport[] = [];
      const done: ArrayDelinearization<unknown>[] = [];
      for (const array of wanted) {
        const accesses: DelinearizationAccess<{ instruction: Instruction; statement: number; kind: string }>[] = [];
        let broken: string | undefined;
        statements.forEach((info, k) => {
          for (const acc of info.statement.accesses) {
            if (acc.base !== array.base) continue;
            const offset = offsets.get(acc.instruction)!;
            if (typeof offset === 'string') broken ??= offset;
            else accesses.push({ tag: { instruction: acc.instruction, statement: k, kind: acc.kind }, offset, domain: domains[k]!, definitions: info.definitions });
          }
        });
        const castsRead = [...new Set(accesses.flatMap((a) => casts.get(a.tag.instruction) ?? []).map((c) => printScev(c.cast)))];
        const base = { base: array.base, name: arrayName(array.base, array.name), elementBytes: array.elementBytes, subscripts: new Map<Instruction, readonly string[]>(), castsRead };
        if (broken !== undefined) {
          reports.push({ ...base, shape: undefined, method: undefined, accesses: [], condition: undefined, conditionIsl: undefined, failure: `no-polynomial: ${broken}`, tried: [] });
          continue;
        }
        let result: ReturnType<typeof delinearizeArray<(typeof accesses)[number]['tag']>>;
        try {
          result = delinearizeArray(ctx, context, accesses, { ...options, cName, eliminable });
        } catch (e) {
          // An expression isl cannot read (a bug of ours, or of a translation) costs this array only.
          if (!(e instanceof IslError)) throw e;
          reports.push({ ...base, shape: undefined, method: undefined, accesses: [], condition: undefined, conditionIsl: undefined, failure: `isl: ${e.message}`, tried: [] });
          continue;
        }
        const tried = result.tried.map((t) => `${t.shape} (§${t.method}): ${t.outcome}`);
        if (!result.ok) {
          reports.push({ ...base, shape: undefined, method: undefined, accesses: [], condition: undefined, conditionIsl: undefined, failure: `${result.reason}: ${result.detail}`, tried });
          continue;
        }
        const piecewise = result.accesses.find((a) => a.pieces.length > 1);
        if (piecewise) {
          reports.push({ ...base, shape: undefined, method: undefined, accesses: [], condition: undefined, conditionIsl: undefined, failure: `piecewise: an access stays piecewise over its domain (${piecewise.pieces.length} pieces of §3.3)`, tried });
          continue;
        }
        done.push(result);
        shapes.set(array.base, toModelShape(result, statements, params, casts));
        const subscriptsC = new Map(result.accesses.map((a) => {
          const defs = statements[a.tag.statement]!.definitions;
          const name = (n: string): string => {
            const d = defs.get(n);
            return d === undefined ? cName(n) : readableFloor(d);
          };
          return [a.tag.instruction, a.pieces[0]!.subscripts.map((f) => polyC(f, name))] as const;
        }));
        reports.push({
          ...base,
          shape: result.shapeC,
          method: result.shape.method,
          accesses: result.accesses.map((a) => `${a.tag.kind} ${base.name}${subscriptsC.get(a.tag.instruction)!.map((f) => `[${f}]`).join('')}`),
          subscripts: subscriptsC,
          condition: result.conditionC,
          conditionIsl: result.status === 'true' ? undefined : result.condition.toStr(),
          failure: undefined,
          tried,
        });
      }
      const quota = options.maxOperations ?? defaultMaxOperations;
      try {
        const merge = (): ReturnType<typeof mergeConditions> => mergeConditions(context, done, cName, eliminable);
        const merged = quota > 0 ? ctx.withMaxOperations(quota, merge) : merge();
        const conditionIsl = merged.status === 'true' ? undefined : merged.condition.toStr();
        return { shapes, arrays: reports, condition: merged.c, conditionIsl, status: merged.status };
      } catch (e) {
        if (!(e instanceof IslQuotaError)) throw e;
        // Out of operations: the arrays' own conditions together, each simplified on its own (stronger, still sound).
        const parts = reports.flatMap((r) => (r.shape && r.condition ? [`(${r.condition})`] : []));
        return { shapes, arrays: reports, condition: parts.length ? parts.join(' && ') : undefined, conditionIsl: undefined, status: parts.length ? 'conditional' : 'true' };
      }
    }), islOperations: ctx.operations }));
  } finally {
    ctx.dispose();
  }
}

/** The model's hook: `buildScopModel(…, { delinearize: scopDelinearizer() })`. */
export function scopDelinearizer(options: ScopDelinearizeOptions = {}): (scop: Scop) => ReadonlyMap<Value, ModelArrayShape> {
  return (scop) => delinearizeScop(scop, options).shapes;
}

/**
 * The counter of a loop around the SCoP is one value while the SCoP runs: a parameter.
 * adi's SCoPs sit inside its time and row loops (-O3's loop versioning leaves those out
 * of every SCoP), and u[i][j]'s offset is 8*n*i + 8*j with i the row loop's counter: read
 * as a parameter that counts like a counter, the terms give the shape [*][n] and the
 * subscripts [i][j]. Each loop gets one expression `{0,+,1}<loop>` (a negative id marks
 * it as ours), which the model translates as a parameter too.
 */
function outerCounters(scop: Scop): (loop: ScevLoop) => Scev | undefined {
  const made = new Map<ScevLoop, Scev>();
  const inside = new Set<ScevLoop>(scop.loops.map((l) => l.loop));
  return (loop) => {
    if (inside.has(loop)) return undefined;
    let e = made.get(loop);
    if (!e) {
      const zero: Scev = { kind: ScevKind.Constant, id: -2_000_000_000, bits: 64, value: 0n };
      const one: Scev = { kind: ScevKind.Constant, id: -2_000_000_001, bits: 64, value: 1n };
      e = { kind: ScevKind.AddRec, id: -1_000_000_000 - loop.id, bits: 64, operands: [zero, one], loop, flags: NoWrap.NUW | NoWrap.NSW };
      made.set(loop, e);
    }
    return e;
  };
}

function statementInfo(statement: ScopStatement, k: number, params: ParameterTable, nonNegative: Set<string>, outerCounter: StatementInfo['outerCounter']): StatementInfo {
  const counterOf = (loop: ScevLoop): string | undefined => {
    const d = statement.loops.findIndex((l) => l.loop === loop);
    return d < 0 ? undefined : `i${d}`;
  };
  const translator = new ScevTranslator(params, counterOf);
  const constraints: string[] = [];
  const text = (e: Scev): string => {
    const r = translator.translate(e);
    noteNonNegative(r.checks, nonNegative);
    return r.text;
  };
  statement.loops.forEach((loop, d) => {
    constraints.push(`i${d} >= 0`);
    try {
      constraints.push(`i${d} <= ${text(loop.backedgeTakenCount)}`);
    } catch (e) {
      if (!(e instanceof NonAffineError)) throw e;
      // A bound we cannot say makes the domain larger: the condition gets only stronger.
    }
  });
  // The branch conditions, a disjunction of conjunctions; `[]` is "never". A
  // comparison we cannot say is left out: the domain gets larger, the condition stronger.
  if (statement.domain.length === 0) constraints.push('1 = 0');
  const disjuncts = statement.domain.map((conjunction) => {
    const parts: string[] = [];
    for (const c of conjunction) {
      try {
        const lhs = text(c.lhs);
        const rhs = text(c.rhs);
        parts.push(c.predicate === 'ne' ? `(${lhs} < ${rhs} or ${lhs} > ${rhs})` : `${lhs} ${predicateText[c.predicate]} ${rhs}`);
      } catch (e) {
        if (!(e instanceof NonAffineError)) throw e;
      }
    }
    return parts.length ? `(${parts.join(' and ')})` : undefined;
  });
  // A conjunction we could say nothing of is "always": then so is the disjunction.
  if (disjuncts.length > 0 && disjuncts.every((d) => d !== undefined)) constraints.push(`(${disjuncts.join(' or ')})`);
  return { statement, outerCounter, tuple: `S${k}`, translator, counterOf, constraints, definitions: new Map(), quasi: new Map() };
}

/**
 * The entry facts over parameters we already have, where their translation is exact
 * (no wrap or sign assumption): a fact on `zext(n)` says nothing about `n`.
 */
function entryConstraints(params: ParameterTable, facts: ScopDelinearizeOptions['entryFacts']): string[] {
  const out: string[] = [];
  const translator = new ScevTranslator(params, () => undefined);
  for (const [expr, range] of facts ?? []) {
    if (loopsOf(expr).length > 0 || unknownsOf(expr).some((u) => params.find(u) === undefined)) continue;
    try {
      const t = translator.translate(expr);
      if (t.checks.length > 0) continue;
      if (range.lo > signedMin(expr.bits)) out.push(`${t.text} >= ${range.lo}`);
      if (range.hi < signedMax(expr.bits)) out.push(`${t.text} <= ${range.hi}`);
    } catch (e) {
      if (!(e instanceof NonAffineError)) throw e;
    }
  }
  return out;
}

/** Checks `0 <= p` on a bare parameter (from zext) become facts of the context. */
function noteNonNegative(checks: readonly { text: string; min: bigint }[], out: Set<string>): void {
  for (const c of checks) {
    const name = c.text.replace(/^\(+|\)+$/g, '');
    if (c.min === 0n && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) out.add(name);
  }
}

/** The byte offset as a polynomial in elements over i<d> and parameter names, or why not. */
function elementOffset(offset: Scev, elementBytes: number, info: StatementInfo, params: ParameterTable, facts: ContextFacts, casts: CastSeenThrough[]): Poly | string {
  // Casts of varying values read as their operands; the model assumes they do not wrap.
  const { polynomial: p, casts: seen } = toPolynomialThroughCasts(offset);
  casts.push(...seen);
  // Varying atoms are fine when they are quasi-affine in the counters (floor((i0)/2)).
  for (const o of p.opaque) if (quasiCounter(o, info) === undefined) return `an expression without closed form in the offset: ${printScev(o)}`;
  let out: Poly = polyFromTerms([]);
  for (const term of p.terms) {
    let t: Poly = constant(term.coefficient);
    for (const atom of term.factors) {
      const f = atomPoly(atom, info, params, facts);
      if (typeof f === 'string') return f;
      t = mul(t, f);
    }
    out = add(out, t);
  }
  const bytes = BigInt(elementBytes);
  if (contentOf(out) % bytes !== 0n) return `offset not a multiple of the element size ${elementBytes}`;
  return polyFromTerms([...out.values()].map((t) => ({ coefficient: t.coefficient / bytes, symbols: t.symbols })));
}

/**
 * The symbol (`q__<id>`) for a quasi-affine expression of the statement's counters,
 * defined in `info.definitions`; undefined when isl cannot say it.
 */
function quasiCounter(e: Scev, info: StatementInfo): string | undefined {
  const name = `q__${e.id < 0 ? `m${-e.id}` : e.id}`;
  if (info.definitions.has(name)) return name;
  try {
    const text = info.translator.translate(e).text;
    info.definitions.set(name, text);
    info.quasi.set(name, e);
    return name;
  } catch (err) {
    if (err instanceof NonAffineError) return undefined;
    throw err;
  }
}

function atomPoly(atom: Atom, info: StatementInfo, params: ParameterTable, facts: ContextFacts): Poly | string {
  if (atom.kind === 'counter') {
    const name = info.counterOf(atom.loop);
    if (name !== undefined) return symbol(name);
    const outer = info.outerCounter(atom.loop);
    const q = outer && quasiCounter(outer, info);
    if (!outer || q === undefined) return `a counter of ${atom.loop.headerName}, outside the statement's loops`;
    facts.nonNegative.add(params.get(outer).name);
    return symbol(q);
  }
  if (loopsOf(atom.expr).length > 0) {
    const q = quasiCounter(atom.expr, info);
    return q === undefined ? `no closed form: ${printScev(atom.expr)}` : symbol(q);
  }
  let text: string;
  try {
    const r = info.translator.translate(atom.expr);
    noteNonNegative(r.checks, facts.nonNegative);
    text = r.text;
  } catch (e) {
    if (e instanceof NonAffineError) return e.message;
    throw e;
  }
  if (!/floor|max|min|mod/.test(text)) return parsePoly(text);
  // A quasi-affine parameter (the exit value of an unrolled loop, `2 * floor(n / 2)`):
  // one parameter for the whole atom, defined for isl in the context.
  const p = params.get(atom.expr);
  facts.definitions.set(p.name, text);
  return symbol(p.name);
}

/** Our polynomial back to the analyses' atoms: i<d> → the statement's loop, names → parameters. */
function toAnalysisPolynomial(p: Poly, statement: ScopStatement | undefined, params: ReadonlyMap<string, Scev>): Polynomial {
  let out = constantPolynomial(0n);
  for (const t of p.values()) {
    let term = constantPolynomial(t.coefficient);
    for (const s of t.symbols) {
      const counter = /^i(\d+)$/.exec(s);
      let atom: Atom;
      if (counter && statement) atom = { kind: 'counter', loop: statement.loops[Number(counter[1])]!.loop };
      else {
        const expr = params.get(s);
        if (!expr) throw new Error(`delinearization: unknown symbol ${s}`);
        atom = { kind: 'parameter', expr };
      }
      term = multiplyPolynomials(term, { terms: [{ coefficient: 1n, factors: [atom] }], opaque: [] });
    }
    out = addPolynomials(out, term);
  }
  return out;
}

function toModelShape(
  result: ArrayDelinearization<{ instruction: Instruction; statement: number }>, statements: readonly StatementInfo[], table: ParameterTable,
  casts: ReadonlyMap<Instruction, readonly CastSeenThrough[]>,
): ModelArrayShape {
  // The names we used are the ParameterTable's; map them back to their expressions.
  const params = new Map<string, Scev>(table.list.map((p) => [p.name, p.expression]));
  for (const info of statements) for (const [name, e] of info.quasi) params.set(name, e);
  const subscripts = new Map<Instruction, readonly Polynomial[]>();
  for (const a of result.accesses) {
    const statement = statements[a.tag.statement]!.statement;
    subscripts.set(a.tag.instruction, a.pieces[0]!.subscripts.map((f) => toAnalysisPolynomial(f, statement, params)));
  }
  const ownCasts = new Map(result.accesses.flatMap((a) => {
    const found = casts.get(a.tag.instruction);
    return found ? [[a.tag.instruction, found] as const] : [];
  }));
  return { sizes: result.sizes.map((s) => toAnalysisPolynomial(s, undefined, params)), subscripts, casts: ownCasts };
}

/** `floor(((0 + 1 * i1))/2)` (the translator's text) as `floor(i1 / 2)` for people. */
function readableFloor(text: string): string {
  const m = /^floor\((.*)\/(\d+)\)$/.exec(text);
  if (!m) return text;
  try {
    const inner = polyToString(parsePoly(m[1]!));
    return `floor(${/^[A-Za-z_][A-Za-z0-9_]*$/.test(inner) ? inner : `(${inner})`} / ${m[2]})`;
  } catch {
    return text;
  }
}

function polyC(p: Poly, cName: (n: string) => string): string {
  return polyToC(p, (s) => (/^i\d+$/.test(s) ? s : cName(s)));
}

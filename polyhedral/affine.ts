// Scalar-evolution expressions → isl affine expressions (as isl text), the
// counterpart of Polly's SCEVAffinator.
//
// isl integers are unbounded, IR integers are not. We translate every
// expression as if its arithmetic were exact and record, for each place where
// that is an assumption, a `RangeCheck`: "this sub-expression stays within
// [min, max] wherever the statement runs". The model turns each check into a
// parameter set (the assumption) with isl.
//   sext(e)              → e        with e within the signed range of e's type
//   zext(e)              → e        with 0 <= e (and e within its signed range)
//   trunc(e)             → e        with e within the signed range of the target type
//   umax/umin(a, b)      → max/min  with 0 <= a, b
//   a + b, c * a without nsw, narrower than 64 bits → with the sum within its type
//   e /u c (c > 0)       → floor(e / c) with 0 <= e
// A product of two non-constant expressions is affine only when neither varies
// in the SCoP: then the product (like any other loop-invariant expression we
// cannot split) becomes a parameter of its own, as in Polly.
import { type Scev, type ScevAddRec, type ScevLoop, type ScevNary, type ScevUnknown, ScevKind, NoWrap, printScev, loopsOf } from '../analysis/scev';
import type { Polynomial } from '../analysis/polynomial';
import { isDimensionName, islIdentifier, UniqueNames } from './isl-names';

/** Thrown for an expression isl cannot represent (products of counters and parameters, ...). */
export class NonAffineError extends Error {
  constructor(readonly expression: Scev | undefined, readonly why: string) {
    super(expression === undefined ? why : `${why}: ${printScev(expression)}`);
  }
}

/** "`text` (an isl affine expression over the statement's counters and the parameters) stays in [min, max]". */
export interface RangeCheck {
  readonly text: string;
  readonly min: bigint;
  readonly max: bigint;
  /** Why the model needs this: `no-wrap` of arithmetic, or `unsigned` operands read as signed. */
  readonly kind: 'no-wrap' | 'unsigned';
  /** The IR-level expression, for people. */
  readonly expression: string;
}

export interface IslExpression {
  /** isl affine (piecewise quasi-affine) expression text, e.g. `(2 + i0 + 3 * n)`. */
  readonly text: string;
  readonly checks: readonly RangeCheck[];
}

/** A subscript or dimension size: a scalar-evolution expression, or a polynomial (delinearization's form). */
export type IndexExpression = Scev | Polynomial;

export function isPolynomial(e: IndexExpression): e is Polynomial {
  return 'terms' in e;
}

/** One parameter of a SCoP: an IR value (or a loop-invariant expression we keep whole) named for isl. */
export interface Parameter {
  /** The isl identifier, e.g. `ni`, `p_0`. */
  readonly name: string;
  /** The expression it stands for: a `ScevUnknown`, or an invariant product/quotient kept opaque. */
  readonly expression: Scev;
  readonly bits: number;
  /** The C expression for run-time checks and reports (source names, `*` for products). */
  readonly c: string;
  /** For a product, the C of each factor (`c` is them joined by ` * `). */
  readonly factors?: readonly string[];
}

export function signedMin(bits: number): bigint {
  return -(1n << BigInt(bits - 1));
}
export function signedMax(bits: number): bigint {
  return (1n << BigInt(bits - 1)) - 1n;
}

/**
 * The parameters of one SCoP, allocated on first use. `nameOf` gives the
 * wanted name of an unknown (source name or IR name); `isInvariant` says
 * whether an unknown has one value throughout the SCoP.
 */
export class ParameterTable {
  private readonly byExpression = new Map<Scev, Parameter>();
  private readonly names = new UniqueNames(true);
  readonly list: Parameter[] = [];

  constructor(
    private readonly nameOf: (u: ScevUnknown) => string,
    readonly isInvariant: (u: ScevUnknown) => boolean,
  ) {}

  get(expression: Scev): Parameter {
    const known = this.byExpression.get(expression);
    if (known) return known;
    const wanted = expression.kind === ScevKind.Unknown ? this.nameOf(expression) : this.opaqueName(expression);
    const base = islIdentifier(wanted);
    const name = this.names.take(base);
    // A source name the model's dimensions use (`i0`) gets a `_` for isl; C still says `i0`.
    const p: Parameter = { name, expression, bits: expression.bits, c: name === `${base}_` && isDimensionName(base) ? base : name };
    this.byExpression.set(expression, p);
    this.list.push(p);
    if (expression.kind !== ScevKind.Unknown) (p as { c: string }).c = this.opaqueC(expression, name);
    if (expression.kind === ScevKind.Mul) (p as { factors?: readonly string[] }).factors = expression.operands.map((o) => this.cOf(o));
    return p;
  }

  /**
   * The parameter for the product of `rest` (the non-constant operands of `product`):
   * `8 * n * m` and `4 * n * m` share the parameter for `n * m`. `bits` is the width
   * the context bounds it by: the factors' type by default (the IR computes the product
   * there); the sum of the factors' widths for a product only the run-time check computes.
   */
  getProduct(rest: readonly Scev[], bits: number = rest[0]!.bits): Parameter {
    const key = rest.map((r) => r.id).join('*') + (bits === rest[0]!.bits ? '' : `:${bits}`);
    let stand = this.products.get(key);
    if (!stand) {
      stand = { kind: ScevKind.Mul, id: -1 - this.products.size, bits, operands: rest, flags: NoWrap.None };
      this.products.set(key, stand);
    }
    return this.get(stand);
  }
  private readonly products = new Map<string, Scev>();

  /** The parameter an expression already maps to, if any. */
  find(expression: Scev): Parameter | undefined {
    return this.byExpression.get(expression);
  }

  private opaqueName(e: Scev): string {
    // The iteration number of a loop around the SCoP (delinearization's `{0,+,1}<loop>`).
    if (e.kind === ScevKind.AddRec && e.id < 0) return `iter_${e.loop.headerName.replace(/^%/, '')}`;
    const parts = unknownNames(e).map((u) => this.nameOf(u));
    return 'p_' + (parts.length > 0 ? parts.join('_') : String(e.id));
  }

  /** C for an invariant expression kept whole; `name` when C cannot say it (a recurrence of an outer loop). */
  private opaqueC(e: Scev, name: string): string {
    switch (e.kind) {
      case ScevKind.Mul:
        return e.operands.map((o) => this.cOf(o)).join(' * ');
      case ScevKind.UDiv:
        return `(${this.cOf(e.lhs)}) / (${this.cOf(e.rhs)})`;
      case ScevKind.SMax:
      case ScevKind.UMax:
      case ScevKind.SMin:
      case ScevKind.UMin: {
        const op = e.kind === ScevKind.SMax || e.kind === ScevKind.UMax ? '>' : '<';
        return e.operands.map((o) => this.cOf(o)).reduce((a, b) => `(${a} ${op} ${b} ? ${a} : ${b})`);
      }
      default:
        return name;
    }
  }

  private cOf(e: Scev): string {
    switch (e.kind) {
      case ScevKind.Constant:
        return e.value.toString();
      case ScevKind.Unknown:
        return this.get(e).c;
      case ScevKind.SignExtend:
      case ScevKind.ZeroExtend:
      case ScevKind.Truncate:
        return this.cOf(e.operand);
      case ScevKind.Add:
        return '(' + e.operands.map((o) => this.cOf(o)).join(' + ') + ')';
      case ScevKind.Mul:
        return e.operands.map((o) => this.cOf(o)).join(' * ');
      default:
        return this.get(e).name;
    }
  }
}

function unknownNames(e: Scev): ScevUnknown[] {
  const out: ScevUnknown[] = [];
  const visit = (x: Scev): void => {
    switch (x.kind) {
      case ScevKind.Unknown:
        if (!out.includes(x)) out.push(x);
        return;
      case ScevKind.SignExtend:
      case ScevKind.ZeroExtend:
      case ScevKind.Truncate:
        visit(x.operand);
        return;
      case ScevKind.UDiv:
        visit(x.lhs);
        visit(x.rhs);
        return;
      case ScevKind.Constant:
      case ScevKind.CouldNotCompute:
        return;
      default:
        x.operands.forEach(visit);
    }
  };
  visit(e);
  return out;
}

/**
 * Translates expressions for one statement (or one loop): `counterName` maps
 * each SCoP loop around it to its isl dimension name (`i0`, `i1`, ...).
 */
export class ScevTranslator {
  private checks: RangeCheck[] = [];

  constructor(
    private readonly params: ParameterTable,
    private readonly counterName: (loop: ScevLoop) => string | undefined,
  ) {}

  translate(e: IndexExpression): IslExpression {
    if (isPolynomial(e)) return this.translatePolynomial(e);
    this.checks = [];
    const text = this.visit(e);
    return { text, checks: this.checks };
  }

  /**
   * A polynomial over counters and parameters (delinearization's subscripts and
   * sizes): affine when every term has at most one counter and no counter is
   * multiplied by a parameter; products of parameters become parameters.
   */
  translatePolynomial(p: Polynomial): IslExpression {
    this.checks = [];
    if (p.opaque.length > 0) throw new NonAffineError(p.opaque[0]!, 'no closed form');
    const terms = p.terms.map((t) => {
      const counters = t.factors.filter((a) => a.kind === 'counter');
      const parameters = t.factors.flatMap((a) => (a.kind === 'parameter' ? [a.expr] : []));
      if (counters.length > 1 || (counters.length === 1 && parameters.length > 0)) {
        throw new NonAffineError(parameters[0], 'product of a loop counter and a parameter');
      }
      const factors: string[] = [];
      for (const c of counters) {
        const name = this.counterName(c.loop);
        if (name === undefined) throw new NonAffineError(undefined, `recurrence of ${c.loop.headerName}, a loop outside the statement`);
        factors.push(name);
      }
      if (parameters.length === 1) factors.push(this.visit(parameters[0]!));
      else if (parameters.length > 1) factors.push(this.params.getProduct(parameters).name);
      if (factors.length === 0) return `${t.coefficient}`;
      const product = factors.join(' * ');
      return t.coefficient === 1n ? product : t.coefficient === -1n ? `-${product}` : `${t.coefficient} * ${product}`;
    });
    return { text: terms.length === 0 ? '0' : `(${terms.join(' + ')})`, checks: this.checks };
  }

  /** True when `e` mentions no counter of the loops this translator knows. */
  private invariant(e: Scev): boolean {
    for (const loop of loopsOf(e)) if (this.counterName(loop) !== undefined) return false;
    for (const u of unknownNames(e)) if (!this.params.isInvariant(u)) return false;
    return true;
  }

  private check(text: string, min: bigint, max: bigint, kind: RangeCheck['kind'], e: Scev): void {
    this.checks.push({ text, min, max, kind, expression: printScev(e) });
  }

  /** `e` must not wrap in its own type: needed unless its operation carries nsw, or it is a bare value. */
  private noWrap(e: Scev, text: string): void {
    if (e.bits >= 64 || e.kind === ScevKind.Unknown || e.kind === ScevKind.Constant) return;
    if ((e.kind === ScevKind.Add || e.kind === ScevKind.Mul || e.kind === ScevKind.AddRec) && e.flags & NoWrap.NSW) return;
    this.check(text, signedMin(e.bits), signedMax(e.bits), 'no-wrap', e);
  }

  private visit(e: Scev): string {
    switch (e.kind) {
      case ScevKind.Constant:
        return e.value.toString();
      case ScevKind.Unknown:
        if (!this.params.isInvariant(e)) throw new NonAffineError(e, 'value defined inside the SCoP');
        return this.params.get(e).name;
      case ScevKind.CouldNotCompute:
        throw new NonAffineError(e, 'no closed form');
      case ScevKind.SignExtend:
        // Sums, products and recurrences check their own wrapping; values and constants cannot wrap.
        return this.visit(e.operand);
      case ScevKind.ZeroExtend: {
        const inner = this.visit(e.operand);
        const bits = e.operand.bits;
        if (e.operand.kind === ScevKind.Constant) return BigInt.asUintN(bits, e.operand.value).toString();
        this.check(inner, 0n, signedMax(bits), 'unsigned', e.operand);
        return inner;
      }
      case ScevKind.Truncate: {
        const inner = this.visit(e.operand);
        if (e.operand.kind !== ScevKind.Constant) this.check(inner, signedMin(e.bits), signedMax(e.bits), 'no-wrap', e);
        return inner;
      }
      case ScevKind.Add: {
        const text = '(' + e.operands.map((o) => this.visit(o)).join(' + ') + ')';
        this.noWrap(e, text);
        return text;
      }
      case ScevKind.Mul:
        return this.product(e);
      case ScevKind.AddRec:
        return this.addRec(e);
      case ScevKind.UDiv: {
        if (e.rhs.kind === ScevKind.Constant && e.rhs.value > 0n) {
          const lhs = this.visit(e.lhs);
          this.check(lhs, 0n, signedMax(e.bits), 'unsigned', e.lhs);
          return `floor((${lhs})/${e.rhs.value})`;
        }
        if (this.invariant(e)) return this.params.get(e).name;
        throw new NonAffineError(e, 'division by a non-constant');
      }
      case ScevKind.SMax:
      case ScevKind.SMin:
      case ScevKind.UMax:
      case ScevKind.UMin: {
        const ops = e.operands.map((o) => this.visit(o));
        if (e.kind === ScevKind.UMax || e.kind === ScevKind.UMin) {
          e.operands.forEach((o, k) => this.check(ops[k]!, 0n, signedMax(o.bits), 'unsigned', o));
        }
        const fn = e.kind === ScevKind.SMax || e.kind === ScevKind.UMax ? 'max' : 'min';
        return ops.reduce((a, b) => `${fn}(${a}, ${b})`);
      }
    }
  }

  private product(e: ScevNary): string {
    let constant = 1n;
    const rest: Scev[] = [];
    for (const o of e.operands) {
      if (o.kind === ScevKind.Constant) constant *= o.value;
      else rest.push(o);
    }
    let body: string;
    if (rest.length === 1) body = this.visit(rest[0]!);
    else if (this.invariant(e)) {
      // n * m: loop-invariant, so one parameter for the whole product (without its constant).
      const product = rest.length === e.operands.length ? e : undefined;
      body = (product ? this.params.get(product) : this.params.getProduct(rest)).name;
    } else throw new NonAffineError(e, 'product of a loop counter and a parameter');
    const text = constant === 1n ? body : `${constant} * ${body}`;
    if (rest.length === 1) this.noWrap(e, `(${text})`);
    return `(${text})`;
  }

  private addRec(e: ScevAddRec): string {
    const counter = this.counterName(e.loop);
    if (counter === undefined) {
      // A recurrence of a loop around the SCoP: one value during the SCoP, a parameter.
      if (this.invariant(e)) return this.params.get(e).name;
      throw new NonAffineError(e, 'recurrence of a loop outside the statement');
    }
    if (e.operands.length !== 2) throw new NonAffineError(e, 'recurrence of order two or more');
    const start = this.visit(e.operands[0]!);
    const step = e.operands[1]!;
    if (step.kind !== ScevKind.Constant) throw new NonAffineError(e, 'product of a loop counter and a parameter');
    const text = `(${start} + ${step.value} * ${counter})`;
    this.noWrap(e, text);
    return text;
  }
}

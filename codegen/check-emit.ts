// The run-time check as IR (one i1 per part) and as a C expression for the report.
// All arithmetic is in i128 on sign-extended values of at most 64 bits (parameters,
// pointers as integers): sums and products of two such values cannot wrap.
import { formatAstExpr, type AstExprTree } from 'isl-wasm';
import { IrBuilder, constInt, intType, type Value } from '../ir';
import { isPolynomial, type IndexExpression } from '../polyhedral/affine';
import { formatLmad } from '../polyhedral/lmad';
import type { ScopArray } from '../polyhedral/model';
import { AstExprEmitter } from './ast-expr';
import type { ScevExpander } from './scev-expander';
import { NotExpandableError } from './scev-expander';
import type { AccessRange, CheckPart } from '../polyhedral/check-parts';
import { exactProduct, guardedMul } from './exact-product';
import { emitStrideTest, strideTestC } from './check-stride';

const i128 = intType(128);

export interface EmittedPart {
  /** Undefined for the parameter-range part the versioning pass adds. */
  readonly part?: CheckPart;
  /** Short name for --rtc-stats and the report: `alias(A,B)`, `no-wrap`, ... */
  readonly label: string;
  readonly c: string;
  readonly value: Value;
  /** For an alias pair, each test it uses (`range`, `stride`) and its i1: the part holds when one does. */
  readonly tests?: readonly { readonly name: 'range' | 'stride'; readonly value: Value }[];
}

/** A part as the report gives it; an alias pair adds the tests it uses and both arrays' LMADs. */
export interface ReportedPart {
  readonly label: string;
  readonly c: string;
  readonly tests?: readonly string[];
  readonly lmads?: readonly string[];
}

export function reportedPart(x: Omit<EmittedPart, 'value'>): ReportedPart {
  const { label, c } = x;
  if (x.part?.kind !== 'alias') return { label, c };
  return { label, c, tests: (x.tests ?? []).map((t) => t.name), lmads: [formatLmad(x.part.a.lmad), formatLmad(x.part.b.lmad)] };
}

export function sizeValue(e: IndexExpression, x: ScevExpander, b: IrBuilder): Value {
  if (!isPolynomial(e)) return x.exact(e);
  if (e.opaque.length > 0) throw new NotExpandableError('an array size with opaque terms');
  let sum: Value = constInt(i128, 0);
  for (const t of e.terms) {
    const factors = t.factors.map((f) => {
      if (f.kind !== 'parameter') throw new NotExpandableError('an array size that varies in the SCoP');
      return x.exact(f.expr);
    });
    const prod = factors.length === 0 ? constInt(i128, t.coefficient) : b.mul(constInt(i128, t.coefficient), exactProduct(b, factors, x.productGuards));
    sum = b.add(sum, prod);
  }
  return sum;
}

function sizeC(a: ScopArray): string[] {
  return a.shape.slice(1);
}

/**
 * `((s0 * n1 + s1) * n2 + s2)` in elements, as IR. Past the first size the partial
 * offset may exceed 64 bits: those products are guarded (`guards`, see exact-product.ts).
 */
function linear(subs: readonly AstExprTree[], sizes: readonly Value[], e: AstExprEmitter, guards: Value[]): Value {
  let acc = e.value(subs[0]!);
  for (let k = 1; k < subs.length; k++) {
    const scaled = k === 1 ? e.b.mul(acc, sizes[0]!) : guardedMul(e.b, acc, sizes[k - 1]!, guards);
    acc = e.b.add(scaled, e.value(subs[k]!));
  }
  return acc;
}

/** `x` as a factor of a product: parenthesized unless a name, a number or parenthesized whole. */
function factorC(x: string): string {
  if (/^-?[A-Za-z0-9_%.]+$/.test(x)) return x;
  if (x.startsWith('(') && x.endsWith(')')) {
    let depth = 0;
    for (let i = 0; i < x.length; i++) {
      depth += x[i] === '(' ? 1 : x[i] === ')' ? -1 : 0;
      if (depth === 0 && i < x.length - 1) return `(${x})`;
    }
    return x;
  }
  return `(${x})`;
}

function linearC(subs: readonly AstExprTree[], sizes: readonly string[]): string {
  let acc = formatAstExpr(subs[0]!);
  for (let k = 1; k < subs.length; k++) {
    const sub = formatAstExpr(subs[k]!);
    // A size of the [P+α] form (`2 + R`) is a sum: `(Q + 1) * (2 + R)`, not `(Q + 1) * 2 + R`.
    const scaled = acc === '0' ? '0' : acc === '1' ? sizes[k - 1]! : `${factorC(acc)} * ${factorC(sizes[k - 1]!)}`;
    acc = scaled === '0' ? sub : sub === '0' ? scaled : `(${scaled} + ${sub})`;
  }
  return acc;
}

/** Whether every parenthesis in `text` closes one opened before it, and all are closed. */
function balanced(text: string): boolean {
  let depth = 0;
  for (const ch of text) {
    depth += ch === '(' ? 1 : ch === ')' ? -1 : 0;
    if (depth < 0) return false;
  }
  return depth === 0;
}

/** `expr + 1` as C text, without `(x - 1) + 1` or `0 + 1` for people to simplify. */
function plusOneC(expr: string): string {
  if (expr === '0') return '1';
  const whole = /^\((.*) - 1\)$/.exec(expr);
  if (whole && balanced(whole[1]!)) return whole[1]!;
  // linearC's `(scaled + (last - 1))`.
  const sum = /^\((.*) \+ \((.*) - 1\)\)$/.exec(expr);
  if (sum && balanced(sum[1]!) && balanced(sum[2]!)) return `(${sum[1]} + ${sum[2]})`;
  return `(${expr} + 1)`;
}

/** `(char *)A + bytes * offset` as C text, without a zero offset. */
function addressC(name: string, bytes: number, offset: string): string {
  return offset === '0' ? `(char *)${name}` : `(char *)${name} + ${bytes} * ${offset}`;
}

export function emitParts(parts: readonly CheckPart[], b: IrBuilder, exprs: AstExprEmitter, expander: ScevExpander): EmittedPart[] {
  const out: EmittedPart[] = [];
  const sizes = new Map<ScopArray, Value[]>();
  const sizesOf = (a: ScopArray) => {
    if (!sizes.has(a)) sizes.set(a, a.sizes.map((s) => sizeValue(s, expander, b)));
    return sizes.get(a)!;
  };
  const bounds = (r: AccessRange, guards: Value[]) => {
    const base = b.zext(b.cast('ptrtoint', r.array.value, intType(64)), i128);
    const eb = constInt(i128, r.array.elementBytes);
    const lo = b.add(base, b.mul(eb, linear(r.first, sizesOf(r.array), exprs, guards)));
    const end = b.add(base, b.mul(eb, b.add(linear(r.last, sizesOf(r.array), exprs, guards), constInt(i128, 1))));
    const name = r.array.name;
    const cLo = addressC(name, r.array.elementBytes, linearC(r.first, sizeC(r.array)));
    const cEnd = addressC(name, r.array.elementBytes, plusOneC(linearC(r.last, sizeC(r.array))));
    return { lo, end, cLo, cEnd };
  };
  let productRange: Extract<CheckPart, { kind: 'product-range' }> | undefined;
  for (const part of parts) {
    if (part.kind === 'assumption') {
      out.push({ part, label: part.what, c: part.c, value: exprs.cond(part.cond) });
      continue;
    }
    if (part.kind === 'product-range') {
      productRange = part;
      continue;
    }
    // Offsets past 64 bits (three or more dimensions) compare only where exact.
    const exact: Value[] = [];
    const a = bounds(part.a, exact);
    const c = bounds(part.b, exact);
    const inExact = (v: Value) => exact.reduce((x, y) => b.and(x, y), v);
    const range = inExact(b.or(b.icmp('sle', a.end, c.lo), b.icmp('sle', c.end, a.lo)));
    const cRange = `${a.cEnd} <= ${c.cLo} || ${c.cEnd} <= ${a.cLo}`;
    const label = `alias(${part.a.array.name},${part.b.array.name})`;
    if (!part.stride) {
      out.push({ part, label, c: cRange, value: range, tests: [{ name: 'range', value: range }] });
      continue;
    }
    const operands = { a: part.a.array, b: part.b.array, firstA: a.lo, firstB: c.lo, cFirstA: a.cLo, cFirstB: c.cLo };
    const stride = inExact(emitStrideTest(part.stride, operands, sizesOf, b));
    out.push({
      part,
      label,
      c: `(${cRange}) || (${strideTestC(part.stride, operands)})`,
      value: b.or(range, stride),
      tests: [{ name: 'range', value: range }, { name: 'stride', value: stride }],
    });
  }
  // Last: the parameters' and sizes' products were all taken by now.
  if (productRange && expander.productGuards.length > 0) {
    out.push({ part: productRange, label: 'product-range', c: productRange.c, value: expander.productGuards.reduce((x, y) => b.and(x, y)) });
  }
  return out;
}

/** The conjunction of C conditions, `1` when there is none. */
export function conjunction(parts: readonly string[]): string {
  const real = parts.filter((p) => p !== '1');
  if (real.includes('0')) return '0';
  if (real.length === 0) return '1';
  return real.length === 1 ? real[0]! : real.map((p) => `(${p})`).join(' && ');
}

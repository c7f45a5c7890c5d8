// The run-time check as IR (one i1 per part) and as a C expression for the report.
// All arithmetic is in i128 on sign-extended values of at most 64 bits (parameters,
// pointers as integers): sums and products of two such values cannot wrap.
import { formatAstExpr, type AstExprTree } from 'isl-wasm';
import { IrBuilder, constInt, intType, type Value } from '../ir';
import { isPolynomial, type IndexExpression } from '../polyhedral/affine';
import type { ScopArray } from '../polyhedral/model';
import { AstExprEmitter } from './ast-expr';
import type { ScevExpander } from './scev-expander';
import { NotExpandableError } from './scev-expander';
import type { AccessRange, CheckPart } from '../polyhedral/check-parts';
import { exactProduct, guardedMul } from './exact-product';

const i128 = intType(128);

export interface EmittedPart {
  /** Undefined for the parameter-range part the versioning pass adds. */
  readonly part?: CheckPart;
  /** Short name for --rtc-stats and the report: `alias(A,B)`, `no-wrap`, ... */
  readonly label: string;
  readonly c: string;
  readonly value: Value;
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

function linearC(subs: readonly AstExprTree[], sizes: readonly string[]): string {
  let acc = formatAstExpr(subs[0]!);
  for (let k = 1; k < subs.length; k++) {
    const sub = formatAstExpr(subs[k]!);
    const scaled = acc === '0' ? '0' : `${acc} * ${sizes[k - 1]}`;
    acc = scaled === '0' ? sub : sub === '0' ? scaled : `(${scaled} + ${sub})`;
  }
  return acc;
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
    const cLo = `(char *)${name} + ${r.array.elementBytes} * ${linearC(r.first, sizeC(r.array))}`;
    const cEnd = `(char *)${name} + ${r.array.elementBytes} * (${linearC(r.last, sizeC(r.array))} + 1)`;
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
    const disjoint = b.or(b.icmp('sle', a.end, c.lo), b.icmp('sle', c.end, a.lo));
    const value = exact.reduce((x, y) => b.and(x, y), disjoint);
    out.push({
      part,
      label: `alias(${part.a.array.name},${part.b.array.name})`,
      c: `${a.cEnd} <= ${c.cLo} || ${c.cEnd} <= ${a.cLo}`,
      value,
    });
  }
  // Last: the parameters' and sizes' products were all taken by now.
  if (productRange && expander.productGuards.length > 0) {
    out.push({ part: productRange, label: 'product-range', c: productRange.c, value: expander.productGuards.reduce((x, y) => b.and(x, y)) });
  }
  return out;
}

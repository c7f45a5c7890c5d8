// The run-time check as IR (one i1 per part) and as a C expression for the report.
// All arithmetic is in i128 on sign-extended values of at most 64 bits (parameters,
// pointers as integers): sums and products of two such values cannot wrap.
import { formatAstExpr, type AstExprTree } from 'isl-wasm';
import { IrBuilder, constInt, intType, type Value } from '../ir';
import { isPolynomial, type IndexExpression } from '../polyhedral/affine';
import type { ScopArray } from '../polyhedral/model';
import { AstExprEmitter } from '../passes/codegen/ast-expr';
import type { ScevExpander } from '../passes/codegen/scev-expander';
import { NotExpandableError } from '../passes/codegen/scev-expander';
import type { AccessRange, CheckPart } from './parts';

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
    let prod: Value = constInt(i128, t.coefficient);
    for (const f of t.factors) {
      if (f.kind !== 'parameter') throw new NotExpandableError('an array size that varies in the SCoP');
      prod = b.mul(prod, x.exact(f.expr));
    }
    sum = b.add(sum, prod);
  }
  return sum;
}

function sizeC(a: ScopArray): string[] {
  return a.shape.slice(1);
}

/** `((s0 * n1 + s1) * n2 + s2)` in elements, as IR and as C. */
function linear(subs: readonly AstExprTree[], sizes: readonly Value[], e: AstExprEmitter): Value {
  let acc = e.value(subs[0]!);
  for (let k = 1; k < subs.length; k++) acc = e.b.add(e.b.mul(acc, sizes[k - 1]!), e.value(subs[k]!));
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
  const bounds = (r: AccessRange) => {
    const base = b.zext(b.cast('ptrtoint', r.array.value, intType(64)), i128);
    const eb = constInt(i128, r.array.elementBytes);
    const lo = b.add(base, b.mul(eb, linear(r.first, sizesOf(r.array), exprs)));
    const end = b.add(base, b.mul(eb, b.add(linear(r.last, sizesOf(r.array), exprs), constInt(i128, 1))));
    const name = r.array.name;
    const cLo = `(char *)${name} + ${r.array.elementBytes} * ${linearC(r.first, sizeC(r.array))}`;
    const cEnd = `(char *)${name} + ${r.array.elementBytes} * (${linearC(r.last, sizeC(r.array))} + 1)`;
    return { lo, end, cLo, cEnd };
  };
  for (const part of parts) {
    if (part.kind === 'assumption') {
      out.push({ part, label: part.what, c: part.c, value: exprs.cond(part.cond) });
      continue;
    }
    const a = bounds(part.a);
    const c = bounds(part.b);
    const value = b.or(b.icmp('sle', a.end, c.lo), b.icmp('sle', c.end, a.lo));
    out.push({
      part,
      label: `alias(${part.a.array.name},${part.b.array.name})`,
      c: `${a.cEnd} <= ${c.cLo} || ${c.cEnd} <= ${a.cLo}`,
      value,
    });
  }
  return out;
}

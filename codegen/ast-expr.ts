// isl AST expressions → IR arithmetic in one integer width (Polly's IslExprBuilder).
//
// isl's expressions are exact integers. We evaluate them in a width chosen by the
// caller: i64 for loop bounds and subscripts of the fast path (the run-time check
// has established that parameters and bounds fit), i128 for the run-time check
// itself, where every operand is a sign-extended value of at most 64 bits, so sums
// and products of two such values cannot wrap.
import type { AstExprTree } from 'isl-wasm';
import { IrBuilder, constInt, intType, type IntegerType, type Value } from '../ir';

/** Where an AST identifier (a loop iterator or a parameter) gets its IR value, already in the evaluation width. */
export type IdLookup = (name: string) => Value;

export class AstExprEmitter {
  readonly type: IntegerType;

  constructor(readonly b: IrBuilder, bits: number, readonly lookup: IdLookup) {
    this.type = intType(bits);
  }

  int(v: bigint | number): Value {
    return constInt(this.type, v);
  }

  /** The value of an integer expression (conditions give i1 values; use `cond`). */
  value(e: AstExprTree): Value {
    const b = this.b;
    switch (e.kind) {
      case 'int':
        return this.int(e.value);
      case 'id':
        return this.lookup(e.name);
      case 'op':
        break;
    }
    const a = e.args;
    const v = (k: number) => this.value(a[k]!);
    switch (e.op) {
      case 'add':
        return b.add(v(0), v(1));
      case 'sub':
        return b.sub(v(0), v(1));
      case 'mul':
        return b.mul(v(0), v(1));
      case 'minus':
        return b.sub(this.int(0), v(0));
      case 'div':
        // Exact division: sdiv is exact.
        return b.binary('sdiv', v(0), v(1));
      case 'pdiv_q':
        // Dividend known non-negative, divisor positive.
        return b.binary('sdiv', v(0), v(1));
      case 'pdiv_r':
      case 'zdiv_r':
        return b.binary('srem', v(0), v(1));
      case 'fdiv_q': {
        // floor(x / d) for d > 0 (isl only divides by positive constants): (x < 0 ? x - d + 1 : x) / d
        const x = v(0);
        const d = v(1);
        const neg = b.icmp('slt', x, this.int(0));
        const adj = b.add(b.sub(x, d), this.int(1));
        return b.binary('sdiv', b.select(neg, adj, x), d);
      }
      case 'max':
      case 'min': {
        let acc = v(0);
        for (let k = 1; k < a.length; k++) {
          const y = v(k);
          const c = b.icmp(e.op === 'max' ? 'sgt' : 'slt', acc, y);
          acc = b.select(c, acc, y);
        }
        return acc;
      }
      case 'select':
      case 'cond':
        return b.select(this.cond(a[0]!), v(1), v(2));
      case 'eq':
      case 'le':
      case 'lt':
      case 'ge':
      case 'gt':
      case 'and':
      case 'and_then':
      case 'or':
      case 'or_else':
        return b.zext(this.cond(e), this.type);
      default:
        throw new Error(`isl AST operation '${e.op}' is not supported in expressions`);
    }
  }

  /** The truth of a condition as i1. `and_then`/`or_else` are evaluated eagerly: their operands have no side effects and cannot trap. */
  cond(e: AstExprTree): Value {
    const b = this.b;
    if (e.kind !== 'op') return b.icmp('ne', this.value(e), this.int(0));
    const a = e.args;
    const pred = { eq: 'eq', le: 'sle', lt: 'slt', ge: 'sge', gt: 'sgt' } as const;
    switch (e.op) {
      case 'eq':
      case 'le':
      case 'lt':
      case 'ge':
      case 'gt':
        return b.icmp(pred[e.op], this.value(a[0]!), this.value(a[1]!));
      case 'and':
      case 'and_then':
        return a.map((x) => this.cond(x)).reduce((x, y) => b.and(x, y));
      case 'or':
      case 'or_else':
        return a.map((x) => this.cond(x)).reduce((x, y) => b.or(x, y));
      default:
        return b.icmp('ne', this.value(e), this.int(0));
    }
  }
}


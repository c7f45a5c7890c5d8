// The scalar-evolution expression algebra, independent of the IR: closed forms of
// integer values as add recurrences over loops, sums, products, extensions and
// loop-invariant unknowns (the parameters). Modelled on LLVM's ScalarEvolution:
// expressions are uniqued by a context, so two expressions that fold to the same
// canonical form are the same object and compare with `===`.
//
// Canonical form (what the constructors guarantee):
// - operands of n-ary add/mul are flattened, constants folded into one leading
//   constant, the rest sorted by `compareScev` (LLVM's complexity order);
// - like terms are merged (`x*3 + x*5` is `8*x`);
// - a constant times a sum is distributed (as LLVM does), so linear
//   combinations stay flat;
// - loop-invariant operands of a sum or product with an add recurrence are moved
//   into its operands: `x + {a,+,b}<L>` is `{(x + a),+,b}<L>`;
// - add recurrences of the same loop are added operand-wise; one with a zero
//   step is its start.
// Anything the algebra cannot fold stays a node; `toPolynomial` then treats it
// as an opaque atom, so equal polynomials still mean equal values.

/** The loop an add recurrence counts in; the loop analysis implements it. */
export interface ScevLoop {
  /** Stable per function (preorder number of the loop tree). */
  readonly id: number;
  /** 1 for an outermost loop. */
  readonly depth: number;
  /** The header block's name, as the printer shows it (`%for.body`). */
  readonly headerName: string;
  /** True when `other` is this loop or nested in it. */
  contains(other: ScevLoop): boolean;
}

/** Tells the algebra where an unknown value is defined, so it can test loop invariance. */
export interface ScevEnvironment {
  /** The innermost loop that contains the definition of `value`, if any. */
  loopOf(value: object): ScevLoop | undefined;
}

export const enum ScevKind {
  // The order is LLVM's SCEVTypes order: it drives the canonical operand order.
  Constant = 0,
  Truncate = 1,
  ZeroExtend = 2,
  SignExtend = 3,
  Add = 4,
  Mul = 5,
  UDiv = 6,
  AddRec = 7,
  UMax = 8,
  SMax = 9,
  UMin = 10,
  SMin = 11,
  Unknown = 12,
  CouldNotCompute = 13,
}

/** No-wrap facts, a bitset as LLVM's SCEV::NoWrapFlags. */
export const enum NoWrap {
  None = 0,
  NUW = 1,
  NSW = 2,
}

interface ScevBase {
  /** Unique per context, in creation order. */
  readonly id: number;
  /** Integer width in bits (pointers count as 64). */
  readonly bits: number;
}
export interface ScevConstant extends ScevBase { readonly kind: ScevKind.Constant; /** Signed value, wrapped to `bits`. */ readonly value: bigint }
export interface ScevUnknown extends ScevBase {
  readonly kind: ScevKind.Unknown;
  /** The IR value this stands for (an argument, a load, an instruction we cannot analyse). */
  readonly value: object;
  /** Printed name, with its sigil (`%n`, `@g`). */
  readonly name: string;
  /** Order among unknowns (arguments first, then instructions in program order). */
  readonly rank: number;
}
export interface ScevCast extends ScevBase {
  readonly kind: ScevKind.Truncate | ScevKind.ZeroExtend | ScevKind.SignExtend;
  readonly operand: Scev;
}
export interface ScevNary extends ScevBase {
  readonly kind: ScevKind.Add | ScevKind.Mul | ScevKind.UMax | ScevKind.SMax | ScevKind.UMin | ScevKind.SMin;
  readonly operands: readonly Scev[];
  readonly flags: NoWrap;
}
export interface ScevUDiv extends ScevBase { readonly kind: ScevKind.UDiv; readonly lhs: Scev; readonly rhs: Scev }
export interface ScevAddRec extends ScevBase {
  readonly kind: ScevKind.AddRec;
  /** [start, step, (second-order step…)]: the value in iteration k is sum_i operands[i] * binomial(k, i). */
  readonly operands: readonly Scev[];
  readonly loop: ScevLoop;
  readonly flags: NoWrap;
}
export interface ScevCouldNotCompute extends ScevBase { readonly kind: ScevKind.CouldNotCompute }

export type Scev = ScevConstant | ScevUnknown | ScevCast | ScevNary | ScevUDiv | ScevAddRec | ScevCouldNotCompute;

export function wrapSigned(value: bigint, bits: number): bigint {
  return BigInt.asIntN(bits, value);
}

/** Creates and uniques expressions; one per function analysis. */
export class ScevContext {
  private readonly unique = new Map<string, Scev>();
  private nextId = 0;
  private readonly unknownIds = new Map<object, Scev>();

  constructor(private readonly env: ScevEnvironment) {}

  readonly couldNotCompute: ScevCouldNotCompute = this.intern('cnc', (id) => ({ kind: ScevKind.CouldNotCompute, id, bits: 0 }));

  private intern<T extends Scev>(key: string, make: (id: number) => T): T {
    const found = this.unique.get(key);
    if (found) return found as T;
    const made = make(this.nextId++);
    this.unique.set(key, made);
    return made;
  }

  constant(value: bigint | number, bits: number): ScevConstant {
    const v = wrapSigned(BigInt(value), bits);
    return this.intern(`c${bits}:${v}`, (id) => ({ kind: ScevKind.Constant, id, bits, value: v }));
  }

  unknown(value: object, name: string, bits: number, rank: number): ScevUnknown {
    const known = this.unknownIds.get(value);
    if (known) return known as ScevUnknown;
    const made = this.intern(`u${this.nextId}`, (id) => ({ kind: ScevKind.Unknown, id, bits, value, name, rank }) as ScevUnknown);
    this.unknownIds.set(value, made);
    return made;
  }

  // ---- loop invariance ----

  /** True when `s` has the same value in every iteration of `loop`. */
  isLoopInvariant(s: Scev, loop: ScevLoop): boolean {
    switch (s.kind) {
      case ScevKind.Constant:
      case ScevKind.CouldNotCompute:
        return true;
      case ScevKind.Unknown: {
        const l = this.env.loopOf(s.value);
        return l === undefined || !loop.contains(l);
      }
      case ScevKind.Truncate:
      case ScevKind.ZeroExtend:
      case ScevKind.SignExtend:
        return this.isLoopInvariant(s.operand, loop);
      case ScevKind.UDiv:
        return this.isLoopInvariant(s.lhs, loop) && this.isLoopInvariant(s.rhs, loop);
      case ScevKind.AddRec:
        return !loop.contains(s.loop) && s.operands.every((o) => this.isLoopInvariant(o, loop));
      default:
        return s.operands.every((o) => this.isLoopInvariant(o, loop));
    }
  }

  // ---- sums ----

  add(operands: readonly Scev[], flags: NoWrap = NoWrap.None): Scev {
    const bits = widthOf(operands);
    const flat: Scev[] = [];
    for (const o of operands) {
      if (o.kind === ScevKind.CouldNotCompute) return o;
      if (o.kind === ScevKind.Add) flat.push(...o.operands);
      else flat.push(o);
    }
    // Fold add recurrences: same loop operand-wise; invariant operands into the innermost one's start.
    const recs = flat.filter((o): o is ScevAddRec => o.kind === ScevKind.AddRec);
    if (recs.length > 0) {
      // The innermost loop among the recurrences (deepest; ties keep the first).
      let inner = recs[0]!;
      for (const r of recs) if (r.loop.depth > inner.loop.depth) inner = r;
      const sameLoop: ScevAddRec[] = [];
      const invariant: Scev[] = [];
      const rest: Scev[] = [];
      for (const o of flat) {
        if (o.kind === ScevKind.AddRec && o.loop === inner.loop) sameLoop.push(o);
        else if (this.isLoopInvariant(o, inner.loop)) invariant.push(o);
        else rest.push(o);
      }
      if (sameLoop.length > 1 || invariant.length > 0) {
        const len = Math.max(...sameLoop.map((r) => r.operands.length));
        const ops: Scev[] = [];
        for (let i = 0; i < len; i++) {
          const parts = sameLoop.map((r) => r.operands[i]).filter((x): x is Scev => x !== undefined);
          if (i === 0) parts.push(...invariant);
          ops.push(this.add(parts));
        }
        // The sum keeps no-wrap flags only when a single recurrence absorbed nothing but constants.
        const keep = sameLoop.length === 1 && invariant.every((x) => x.kind === ScevKind.Constant) ? sameLoop[0]!.flags & flags : NoWrap.None;
        const folded = this.addRec(ops, inner.loop, keep);
        return rest.length === 0 ? folded : this.add([folded, ...rest], NoWrap.None);
      }
    }
    // Merge constants and like terms: key each term by its non-constant part.
    let constant = 0n;
    const terms = new Map<Scev, bigint>();
    const termOrder: Scev[] = [];
    for (const o of flat) {
      if (o.kind === ScevKind.Constant) { constant += o.value; continue; }
      const [coef, rest] = splitCoefficient(this, o);
      if (!terms.has(rest)) termOrder.push(rest);
      terms.set(rest, (terms.get(rest) ?? 0n) + coef);
    }
    const out: Scev[] = [];
    for (const t of termOrder) {
      const c = wrapSigned(terms.get(t)!, bits);
      if (c === 0n) continue;
      out.push(c === 1n ? t : this.mul([this.constant(c, bits), t]));
    }
    const c = wrapSigned(constant, bits);
    if (out.length === 0) return this.constant(c, bits);
    if (c !== 0n) out.push(this.constant(c, bits));
    if (out.length === 1) return out[0]!;
    out.sort(compareScev);
    // Flags survive only when nothing was merged.
    const f = out.length === flat.length ? flags : NoWrap.None;
    return this.intern(`+${f}:${out.map((o) => o.id).join(',')}`, (id) => ({ kind: ScevKind.Add, id, bits, operands: out, flags: f }));
  }

  minus(a: Scev, b: Scev): Scev {
    return this.add([a, this.negate(b)]);
  }

  negate(a: Scev): Scev {
    return this.mul([this.constant(-1n, a.bits), a]);
  }

  // ---- products ----

  mul(operands: readonly Scev[], flags: NoWrap = NoWrap.None): Scev {
    const bits = widthOf(operands);
    const flat: Scev[] = [];
    for (const o of operands) {
      if (o.kind === ScevKind.CouldNotCompute) return o;
      if (o.kind === ScevKind.Mul) flat.push(...o.operands);
      else flat.push(o);
    }
    let constant = 1n;
    const others: Scev[] = [];
    for (const o of flat) {
      if (o.kind === ScevKind.Constant) constant *= o.value;
      else others.push(o);
    }
    constant = wrapSigned(constant, bits);
    if (constant === 0n) return this.constant(0n, bits);
    if (others.length === 0) return this.constant(constant, bits);
    // Distribute a constant over a single sum, as LLVM does: keeps linear forms flat.
    if (others.length === 1 && constant !== 1n && others[0]!.kind === ScevKind.Add) {
      const c = this.constant(constant, bits);
      return this.add(others[0]!.operands.map((t) => this.mul([c, t])));
    }
    // A recurrence times values invariant in its loop: scale every operand.
    const recIndex = others.findIndex((o) => o.kind === ScevKind.AddRec);
    if (recIndex >= 0) {
      const rec = others[recIndex] as ScevAddRec;
      const scale: Scev[] = constant === 1n ? [] : [this.constant(constant, bits)];
      const rest: Scev[] = [];
      others.forEach((o, i) => {
        if (i === recIndex) return;
        if (this.isLoopInvariant(o, rec.loop)) scale.push(o);
        else rest.push(o);
      });
      if (scale.length > 0) {
        const scaled = this.addRec(rec.operands.map((op) => this.mul([...scale, op])), rec.loop, NoWrap.None);
        return rest.length === 0 ? scaled : this.mul([scaled, ...rest]);
      }
    }
    const out = [...others];
    if (constant !== 1n) out.push(this.constant(constant, bits));
    if (out.length === 1) return out[0]!;
    out.sort(compareScev);
    return this.intern(`*${flags}:${out.map((o) => o.id).join(',')}`, (id) => ({ kind: ScevKind.Mul, id, bits, operands: out, flags }));
  }

  // ---- recurrences ----

  /** {operands[0],+,operands[1],+,…}<loop>; trailing zero steps are dropped. */
  addRec(operands: readonly Scev[], loop: ScevLoop, flags: NoWrap = NoWrap.None): Scev {
    const ops = [...operands];
    while (ops.length > 1 && isZero(ops[ops.length - 1]!)) ops.pop();
    if (ops.length === 1) return ops[0]!;
    if (ops.some((o) => o.kind === ScevKind.CouldNotCompute)) return this.couldNotCompute;
    const bits = widthOf(ops);
    return this.intern(`{${flags}:${loop.id}:${ops.map((o) => o.id).join(',')}`, (id) => ({ kind: ScevKind.AddRec, id, bits, operands: ops, loop, flags }));
  }

  // ---- casts ----

  truncate(op: Scev, bits: number): Scev {
    if (op.bits === bits) return op;
    switch (op.kind) {
      case ScevKind.Constant: return this.constant(op.value, bits);
      case ScevKind.Truncate: return this.truncate(op.operand, bits);
      case ScevKind.ZeroExtend:
      case ScevKind.SignExtend:
        if (op.operand.bits === bits) return op.operand;
        if (op.operand.bits > bits) return this.truncate(op.operand, bits);
        return op.kind === ScevKind.ZeroExtend ? this.zeroExtend(op.operand, bits) : this.signExtend(op.operand, bits);
      case ScevKind.Add: return this.add(op.operands.map((o) => this.truncate(o, bits)));
      case ScevKind.Mul: return this.mul(op.operands.map((o) => this.truncate(o, bits)));
      case ScevKind.AddRec: return this.addRec(op.operands.map((o) => this.truncate(o, bits)), op.loop);
      case ScevKind.CouldNotCompute: return op;
      default: return this.intern(`t${bits}:${op.id}`, (id) => ({ kind: ScevKind.Truncate, id, bits, operand: op }));
    }
  }

  signExtend(op: Scev, bits: number): Scev {
    if (op.bits === bits) return op;
    switch (op.kind) {
      case ScevKind.Constant: return this.constant(op.value, bits);
      case ScevKind.SignExtend: return this.signExtend(op.operand, bits);
      case ScevKind.ZeroExtend: return this.zeroExtend(op.operand, bits); // a zext result is non-negative
      case ScevKind.AddRec:
        if (op.flags & NoWrap.NSW) return this.addRec(op.operands.map((o) => this.signExtend(o, bits)), op.loop, op.flags);
        break;
      case ScevKind.Add:
      case ScevKind.Mul:
        if (op.flags & NoWrap.NSW) {
          const ext = op.operands.map((o) => this.signExtend(o, bits));
          return op.kind === ScevKind.Add ? this.add(ext, op.flags) : this.mul(ext, op.flags);
        }
        break;
      case ScevKind.CouldNotCompute: return op;
      default: break;
    }
    return this.intern(`s${bits}:${op.id}`, (id) => ({ kind: ScevKind.SignExtend, id, bits, operand: op }));
  }

  zeroExtend(op: Scev, bits: number): Scev {
    if (op.bits === bits) return op;
    switch (op.kind) {
      case ScevKind.Constant: return this.constant(BigInt.asUintN(op.bits, op.value), bits);
      case ScevKind.ZeroExtend: return this.zeroExtend(op.operand, bits);
      case ScevKind.AddRec:
        if (op.flags & NoWrap.NUW) return this.addRec(op.operands.map((o) => this.zeroExtend(o, bits)), op.loop, op.flags);
        break;
      case ScevKind.Add:
      case ScevKind.Mul:
        if (op.flags & NoWrap.NUW) {
          const ext = op.operands.map((o) => this.zeroExtend(o, bits));
          return op.kind === ScevKind.Add ? this.add(ext, op.flags) : this.mul(ext, op.flags);
        }
        break;
      case ScevKind.CouldNotCompute: return op;
      default: break;
    }
    return this.intern(`z${bits}:${op.id}`, (id) => ({ kind: ScevKind.ZeroExtend, id, bits, operand: op }));
  }

  /** Extends or truncates to `bits` (the sign of the extension given by `signed`). */
  resize(op: Scev, bits: number, signed: boolean): Scev {
    if (op.bits === bits || op.kind === ScevKind.CouldNotCompute) return op;
    if (op.bits > bits) return this.truncate(op, bits);
    return signed ? this.signExtend(op, bits) : this.zeroExtend(op, bits);
  }

  // ---- division and extrema ----

  udiv(lhs: Scev, rhs: Scev): Scev {
    if (lhs.kind === ScevKind.CouldNotCompute || rhs.kind === ScevKind.CouldNotCompute) return this.couldNotCompute;
    if (rhs.kind === ScevKind.Constant) {
      const d = BigInt.asUintN(rhs.bits, rhs.value);
      if (d === 1n) return lhs;
      if (lhs.kind === ScevKind.Constant && d !== 0n) return this.constant(BigInt.asUintN(lhs.bits, lhs.value) / d, lhs.bits);
    }
    return this.intern(`/${lhs.id},${rhs.id}`, (id) => ({ kind: ScevKind.UDiv, id, bits: lhs.bits, lhs, rhs }));
  }

  smax(a: Scev, b: Scev): Scev { return this.minmax(ScevKind.SMax, [a, b]); }
  smin(a: Scev, b: Scev): Scev { return this.minmax(ScevKind.SMin, [a, b]); }
  umax(a: Scev, b: Scev): Scev { return this.minmax(ScevKind.UMax, [a, b]); }
  umin(a: Scev, b: Scev): Scev { return this.minmax(ScevKind.UMin, [a, b]); }

  minmax(kind: ScevKind.SMax | ScevKind.SMin | ScevKind.UMax | ScevKind.UMin, operands: readonly Scev[]): Scev {
    const flat: Scev[] = [];
    for (const o of operands) {
      if (o.kind === ScevKind.CouldNotCompute) return o;
      if (o.kind === kind) flat.push(...o.operands);
      else flat.push(o);
    }
    const bits = widthOf(flat);
    const signed = kind === ScevKind.SMax || kind === ScevKind.SMin;
    const isMax = kind === ScevKind.SMax || kind === ScevKind.UMax;
    let best: bigint | undefined;
    const rest: Scev[] = [];
    for (const o of flat) {
      if (o.kind === ScevKind.Constant) {
        const v = signed ? o.value : BigInt.asUintN(bits, o.value);
        best = best === undefined ? v : isMax ? (v > best ? v : best) : (v < best ? v : best);
      } else if (!rest.includes(o)) rest.push(o);
    }
    const out = [...rest];
    if (best !== undefined) out.push(this.constant(best, bits));
    if (out.length === 1) return out[0]!;
    // Two operands that differ by a constant compare statically.
    if (out.length === 2) {
      const d = constantValue(this.minus(out[0]!, out[1]!));
      if (d !== undefined && signed) return (d >= 0n) === isMax ? out[0]! : out[1]!;
    }
    out.sort(compareScev);
    return this.intern(`m${kind}:${out.map((o) => o.id).join(',')}`, (id) => ({ kind, id, bits, operands: out, flags: NoWrap.None }) as ScevNary);
  }

  // ---- evaluation ----

  /** The value of an add recurrence after `iterations` (an expression) of its loop; affine recurrences only. */
  evaluateAtIteration(rec: ScevAddRec, iterations: Scev): Scev {
    if (rec.operands.length !== 2) return this.couldNotCompute;
    return this.add([rec.operands[0]!, this.mul([rec.operands[1]!, this.resize(iterations, rec.bits, false)])]);
  }

  /** Replaces every add recurrence of `loop` in `s` by its value after `iterations` (LLVM's getSCEVAtScope for exit values). */
  atIteration(s: Scev, loop: ScevLoop, iterations: Scev): Scev {
    return this.rewrite(s, (e) => (e.kind === ScevKind.AddRec && e.loop === loop ? this.evaluateAtIteration(e, iterations) : undefined));
  }

  /** Rebuilds `s` bottom-up, letting `visit` replace a node (return undefined to keep recursing). */
  rewrite(s: Scev, visit: (s: Scev) => Scev | undefined): Scev {
    const r = visit(s);
    if (r !== undefined) return r;
    const go = (x: Scev): Scev => this.rewrite(x, visit);
    switch (s.kind) {
      case ScevKind.Constant:
      case ScevKind.Unknown:
      case ScevKind.CouldNotCompute:
        return s;
      case ScevKind.Truncate: return this.truncate(go(s.operand), s.bits);
      case ScevKind.ZeroExtend: return this.zeroExtend(go(s.operand), s.bits);
      case ScevKind.SignExtend: return this.signExtend(go(s.operand), s.bits);
      case ScevKind.UDiv: return this.udiv(go(s.lhs), go(s.rhs));
      case ScevKind.AddRec: return this.addRec(s.operands.map(go), s.loop, s.flags);
      case ScevKind.Add: return this.add(s.operands.map(go), s.flags);
      case ScevKind.Mul: return this.mul(s.operands.map(go), s.flags);
      default: return this.minmax(s.kind, s.operands.map(go));
    }
  }
}

// ---- helpers on expressions ----

function widthOf(ops: readonly Scev[]): number {
  for (const o of ops) if (o.kind !== ScevKind.CouldNotCompute) return o.bits;
  return 64;
}

export function isZero(s: Scev): boolean {
  return s.kind === ScevKind.Constant && s.value === 0n;
}

export function constantValue(s: Scev): bigint | undefined {
  return s.kind === ScevKind.Constant ? s.value : undefined;
}

/** A term as coefficient × rest (`8 * %n` is [8, %n]; `%n` is [1, %n]). */
function splitCoefficient(ctx: ScevContext, s: Scev): [bigint, Scev] {
  if (s.kind === ScevKind.Mul && s.operands[0]!.kind === ScevKind.Constant) {
    const c = s.operands[0].value;
    const rest = s.operands.slice(1);
    return [c, rest.length === 1 ? rest[0]! : ctx.mul(rest, s.flags)];
  }
  return [1n, s];
}

/** LLVM's complexity order: by kind, then by contents; a total order on uniqued expressions. */
export function compareScev(a: Scev, b: Scev): number {
  if (a === b) return 0;
  if (a.kind !== b.kind) return a.kind - b.kind;
  switch (a.kind) {
    case ScevKind.Constant: {
      const bv = (b as ScevConstant).value;
      return a.value < bv ? -1 : a.value > bv ? 1 : a.bits - b.bits;
    }
    case ScevKind.Unknown: {
      const u = b as ScevUnknown;
      return a.rank !== u.rank ? a.rank - u.rank : a.id - u.id;
    }
    case ScevKind.Truncate:
    case ScevKind.ZeroExtend:
    case ScevKind.SignExtend:
      return compareScev(a.operand, (b as ScevCast).operand) || a.bits - b.bits;
    case ScevKind.UDiv: {
      const d = b as ScevUDiv;
      return compareScev(a.lhs, d.lhs) || compareScev(a.rhs, d.rhs);
    }
    case ScevKind.AddRec: {
      const r = b as ScevAddRec;
      if (a.loop !== r.loop) return a.loop.depth !== r.loop.depth ? a.loop.depth - r.loop.depth : a.loop.id - r.loop.id;
      return compareLists(a.operands, r.operands);
    }
    case ScevKind.CouldNotCompute:
      return 0;
    default:
      return compareLists(a.operands, (b as ScevNary).operands);
  }
}

function compareLists(a: readonly Scev[], b: readonly Scev[]): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) {
    const c = compareScev(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return 0;
}

/** Every sub-expression of `s`, `s` first. */
export function* subExpressions(s: Scev): Generator<Scev> {
  yield s;
  switch (s.kind) {
    case ScevKind.Truncate:
    case ScevKind.ZeroExtend:
    case ScevKind.SignExtend:
      yield* subExpressions(s.operand);
      break;
    case ScevKind.UDiv:
      yield* subExpressions(s.lhs);
      yield* subExpressions(s.rhs);
      break;
    case ScevKind.Add:
    case ScevKind.Mul:
    case ScevKind.AddRec:
    case ScevKind.SMax:
    case ScevKind.SMin:
    case ScevKind.UMax:
    case ScevKind.UMin:
      for (const o of s.operands) yield* subExpressions(o);
      break;
    default:
      break;
  }
}

/** The unknowns (parameters and opaque values) that `s` mentions, in canonical order. */
export function unknownsOf(s: Scev): ScevUnknown[] {
  const seen = new Set<ScevUnknown>();
  for (const e of subExpressions(s)) if (e.kind === ScevKind.Unknown) seen.add(e);
  return [...seen].sort(compareScev);
}

/** The loops whose recurrences `s` mentions. */
export function loopsOf(s: Scev): ScevLoop[] {
  const seen = new Set<ScevLoop>();
  for (const e of subExpressions(s)) if (e.kind === ScevKind.AddRec) seen.add(e.loop);
  return [...seen].sort((a, b) => a.depth - b.depth || a.id - b.id);
}

// ---- printing (LLVM's notation) ----

function flagText(f: NoWrap): string {
  return `${f & NoWrap.NUW ? '<nuw>' : ''}${f & NoWrap.NSW ? '<nsw>' : ''}`;
}

const naryOp: Partial<Record<ScevKind, string>> = {
  [ScevKind.Add]: ' + ', [ScevKind.Mul]: ' * ', [ScevKind.SMax]: ' smax ', [ScevKind.SMin]: ' smin ',
  [ScevKind.UMax]: ' umax ', [ScevKind.UMin]: ' umin ',
};

/** Prints like LLVM's SCEV::print: `{0,+,8}<nsw><%for.body>`, `(8 * %n)`, `(sext i32 %i to i64)`. */
export function printScev(s: Scev): string {
  switch (s.kind) {
    case ScevKind.Constant: return s.value.toString();
    case ScevKind.Unknown: return s.name;
    case ScevKind.CouldNotCompute: return '***COULDNOTCOMPUTE***';
    case ScevKind.Truncate: return `(trunc i${s.operand.bits} ${printScev(s.operand)} to i${s.bits})`;
    case ScevKind.ZeroExtend: return `(zext i${s.operand.bits} ${printScev(s.operand)} to i${s.bits})`;
    case ScevKind.SignExtend: return `(sext i${s.operand.bits} ${printScev(s.operand)} to i${s.bits})`;
    case ScevKind.UDiv: return `(${printScev(s.lhs)} /u ${printScev(s.rhs)})`;
    case ScevKind.AddRec: return `{${s.operands.map(printScev).join(',+,')}}${flagText(s.flags)}<${s.loop.headerName}>`;
    case ScevKind.Add:
      // LLVM prints sums with the constant first; our canonical order already puts it first.
      return `(${s.operands.map(printScev).join(' + ')})${flagText(s.flags)}`;
    default:
      return `(${s.operands.map(printScev).join(naryOp[s.kind]!)})${flagText(s.flags)}`;
  }
}

// Signed value ranges of scalar-evolution expressions, refined by facts (the
// branch conditions that dominate a point). Just enough reasoning to read
// unsigned comparisons as signed ones, to drop `smax(0, …)` from trip counts
// behind loop guards, and to see that a runtime-unrolled loop's trip count is 0
// when its guard skips it.
import { type Scev, type ScevContext, ScevKind, NoWrap } from './scev';

export interface Range {
  readonly lo: bigint;
  readonly hi: bigint;
}

export function fullRange(bits: number): Range {
  return { lo: -(1n << BigInt(bits - 1)), hi: (1n << BigInt(bits - 1)) - 1n };
}

export function intersectRanges(a: Range, b: Range): Range {
  return { lo: a.lo > b.lo ? a.lo : b.lo, hi: a.hi < b.hi ? a.hi : b.hi };
}

/** Ranges known for some expressions at a program point; expressions absent are unconstrained. */
export type Facts = ReadonlyMap<Scev, Range>;

function fits(r: Range, bits: number): Range {
  const f = fullRange(bits);
  return r.lo < f.lo || r.hi > f.hi ? f : r;
}

const min = (...xs: bigint[]): bigint => xs.reduce((a, b) => (a < b ? a : b));
const max = (...xs: bigint[]): bigint => xs.reduce((a, b) => (a > b ? a : b));

/** A signed range containing every value `s` can take where `facts` hold. */
export function rangeOf(s: Scev, facts: Facts): Range {
  const known = facts.get(s);
  const r = computeRange(s, facts);
  return known ? intersectRanges(r, known) : r;
}

function computeRange(s: Scev, facts: Facts): Range {
  const full = fullRange(Math.max(s.bits, 1));
  switch (s.kind) {
    case ScevKind.Constant:
      return { lo: s.value, hi: s.value };
    case ScevKind.ZeroExtend: {
      const r = rangeOf(s.operand, facts);
      return r.lo >= 0n ? r : { lo: 0n, hi: (1n << BigInt(s.operand.bits)) - 1n };
    }
    case ScevKind.SignExtend:
      return rangeOf(s.operand, facts);
    case ScevKind.Truncate: {
      const r = rangeOf(s.operand, facts);
      return fits(r, s.bits) === r ? r : full;
    }
    case ScevKind.Add: {
      let lo = 0n;
      let hi = 0n;
      for (const o of s.operands) {
        const r = rangeOf(o, facts);
        lo += r.lo;
        hi += r.hi;
      }
      return fits({ lo, hi }, s.bits);
    }
    case ScevKind.Mul: {
      let acc: Range = { lo: 1n, hi: 1n };
      for (const o of s.operands) {
        const r = rangeOf(o, facts);
        const c = [acc.lo * r.lo, acc.lo * r.hi, acc.hi * r.lo, acc.hi * r.hi];
        acc = { lo: min(...c), hi: max(...c) };
      }
      return fits(acc, s.bits);
    }
    case ScevKind.UDiv: {
      const l = rangeOf(s.lhs, facts);
      const d = rangeOf(s.rhs, facts);
      if (l.lo >= 0n && d.lo > 0n) return { lo: l.lo / d.hi, hi: l.hi / d.lo };
      return { lo: 0n, hi: full.hi };
    }
    case ScevKind.SMax:
    case ScevKind.SMin: {
      const rs = s.operands.map((o) => rangeOf(o, facts));
      return s.kind === ScevKind.SMax
        ? { lo: max(...rs.map((r) => r.lo)), hi: max(...rs.map((r) => r.hi)) }
        : { lo: min(...rs.map((r) => r.lo)), hi: min(...rs.map((r) => r.hi)) };
    }
    case ScevKind.AddRec: {
      // Without the trip count, only the direction is known, and only without wrap.
      if (s.operands.length !== 2) return full;
      // A fact on another recurrence of the same loop and step: they differ by their starts.
      for (const [k, r] of facts) {
        if (k === s || k.kind !== ScevKind.AddRec || k.loop !== s.loop || k.operands.length !== 2 || k.operands[1] !== s.operands[1]) continue;
        const a = s.operands[0]!;
        const b = k.operands[0]!;
        if (a.kind === ScevKind.Constant && b.kind === ScevKind.Constant) {
          const d = a.value - b.value;
          return fits({ lo: r.lo + d, hi: r.hi + d }, s.bits);
        }
      }
      // A fact on a unit-step counter of the loop bounds the iteration number k.
      for (const [k, r] of facts) {
        if (k.kind !== ScevKind.AddRec || k.loop !== s.loop || k.operands.length !== 2) continue;
        const b = k.operands[0]!;
        const t = k.operands[1]!;
        if (b.kind !== ScevKind.Constant || t.kind !== ScevKind.Constant || t.value !== 1n) continue;
        const iter: Range = { lo: max(0n, r.lo - b.value), hi: r.hi - b.value };
        if (iter.hi < iter.lo) continue;
        const start = rangeOf(s.operands[0]!, facts);
        const step = rangeOf(s.operands[1]!, facts);
        const c = [step.lo * iter.lo, step.lo * iter.hi, step.hi * iter.lo, step.hi * iter.hi];
        return fits({ lo: start.lo + min(...c), hi: start.hi + max(...c) }, s.bits);
      }
      if (!(s.flags & NoWrap.NSW)) return full;
      const start = rangeOf(s.operands[0]!, facts);
      const step = rangeOf(s.operands[1]!, facts);
      if (step.lo >= 0n) return { lo: start.lo, hi: full.hi };
      if (step.hi <= 0n) return { lo: full.lo, hi: start.hi };
      return full;
    }
    default:
      return full;
  }
}

export function isKnownNonNegative(s: Scev, facts: Facts): boolean {
  return rangeOf(s, facts).lo >= 0n;
}

/**
 * Adds the fact `s ∈ r` to `facts` (a new map), also for the expressions it is made of
 * when that follows directly: `c + x ∈ r` gives `x ∈ r - c`; `zext x`, `sext x` in a
 * non-negative range give the same range for `x`.
 */
export function withFact(ctx: ScevContext, facts: Facts, s: Scev, r: Range): Map<Scev, Range> {
  const out = new Map(facts);
  let cur: Scev = s;
  let range = r;
  for (let guard = 0; guard < 8; guard++) {
    const prev = out.get(cur);
    out.set(cur, prev ? intersectRanges(prev, range) : range);
    if (cur.kind === ScevKind.Add && cur.operands[0]!.kind === ScevKind.Constant) {
      const c = cur.operands[0].value;
      range = { lo: range.lo - c, hi: range.hi - c };
      cur = ctx.add(cur.operands.slice(1));
    } else if ((cur.kind === ScevKind.ZeroExtend || cur.kind === ScevKind.SignExtend) && range.lo >= 0n) {
      cur = cur.operand;
      range = fits(range, cur.bits);
    } else {
      break;
    }
  }
  return out;
}

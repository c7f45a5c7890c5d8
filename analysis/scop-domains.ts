// Statement domains for SCoP detection: the branch conditions under which a
// block runs, as a disjunction of conjunctions of affine comparisons, built
// level by level of the loops inside the region (a loop's own bounds are not
// part of it: they are its backedge-taken count). Simplified without a solver
// so that what reaches isl is small.
import { type BasicBlock, type Instruction, type Value, terminator } from '../ir';
import type { DomTree } from './dominators';
import type { Loop, LoopInfo } from './loops';
import { type ScalarEvolution, invertPredicate, toSigned, switchCases } from './scalar-evolution';
import type { Scev } from './scev';
import type { IntPredicate, ScopCondition, ScopConditionDnf } from './scop-detection-types';

/** Above this many conjunctions a statement's domain is "complex control flow". */
export const maxDnfSize = 32;

/** What domain building needs to know of a region. */
export interface RegionShape {
  readonly entry: BasicBlock;
  readonly blockSet: ReadonlySet<BasicBlock>;
  /** Loops entirely inside the region. */
  readonly loops: readonly Loop[];
}

/** The condition under which control goes from `from` to its successor `to`. */
export function edgeCondition(se: ScalarEvolution, from: BasicBlock, to: BasicBlock): ScopConditionDnf {
  const t = terminator(from)!;
  if (t.opcode === 'switch') {
    const x = se.getScev(t.operands[0]!);
    const cases = switchCases(t);
    const constant = (v: bigint): Scev => se.ctx.constant(v, x.bits);
    const hits: ScopCondition[][] = cases.filter((c) => c.dest === to).map((c) => [{ lhs: x, predicate: 'eq', rhs: constant(c.value) }]);
    if (t.operands[1] === to) hits.push(cases.filter((c) => c.dest !== to).map((c) => ({ lhs: x, predicate: 'ne' as const, rhs: constant(c.value) })));
    return hits;
  }
  if (t.operands.length !== 3 || t.operands[1] === t.operands[2]) return [[]];
  return conditionDnf(se, t.operands[0]!, t.operands[1] === to);
}

/** `select c, x, false` (and) or `select c, true, x` (or), as -O3 writes logical and/or. */
export function isSelectAndOr(i: Instruction): boolean {
  if (i.opcode !== 'select' || i.type.kind !== 'int' || i.type.bits !== 1) return false;
  const [, t, f] = i.operands;
  return (f!.kind === 'const-int' && f.value === 0n) || (t!.kind === 'const-int' && t.value !== 0n);
}

/** The DNF of `cond == outcome` over integer comparisons (non-comparisons should have been rejected). */
export function conditionDnf(se: ScalarEvolution, cond: Value, outcome: boolean): ScopConditionDnf {
  if (cond.kind === 'const-int') return (cond.value !== 0n) === outcome ? [[]] : [];
  if (cond.kind !== 'instruction') return [[]];
  const isAnd = cond.opcode === 'and' || (cond.opcode === 'select' && cond.operands[2]!.kind === 'const-int' && cond.operands[2].value === 0n);
  const isOr = cond.opcode === 'or' || (cond.opcode === 'select' && cond.operands[1]!.kind === 'const-int' && cond.operands[1].value !== 0n);
  if (isAnd || isOr) {
    const [a, b] = cond.opcode === 'select' ? [cond.operands[0]!, isAnd ? cond.operands[1]! : cond.operands[2]!] : [cond.operands[0]!, cond.operands[1]!];
    const da = conditionDnf(se, a, outcome);
    const db = conditionDnf(se, b, outcome);
    // and-true / or-false: conjunction; and-false / or-true: disjunction.
    return (isAnd === outcome) ? andDnf(da, db) : [...da, ...db];
  }
  if (cond.opcode === 'icmp' && cond.operands[0]!.type.kind === 'int') {
    let pred = cond.predicate as IntPredicate;
    if (!outcome) pred = invertPredicate[pred];
    const c: ScopCondition = { lhs: se.getScev(cond.operands[0]!), predicate: toSigned[pred], rhs: se.getScev(cond.operands[1]!) };
    return [[c]];
  }
  return [[]];
}

export function andDnf(a: ScopConditionDnf, b: ScopConditionDnf): ScopConditionDnf {
  const out: ScopCondition[][] = [];
  for (const x of a) for (const y of b) out.push([...x, ...y]);
  return out;
}

/** Statement domains: the branch conditions on the way from the region entry, level by level of loops. */
export class DomainBuilder {
  private readonly reachMemo = new Map<BasicBlock, ScopConditionDnf>();

  constructor(private readonly se: ScalarEvolution, private readonly li: LoopInfo, private readonly dt: DomTree, private readonly r: RegionShape) {}

  private regionLoop(b: BasicBlock): Loop | undefined {
    const l = this.li.loopFor(b);
    return l && this.r.loops.includes(l) ? l : undefined;
  }

  /** Conditions to reach `b` from the start of its level (its innermost region loop's header, or the region entry). */
  private reach(b: BasicBlock): ScopConditionDnf {
    const memo = this.reachMemo.get(b);
    if (memo) return memo;
    let out: (readonly ScopCondition[])[] = [];
    if (b === this.r.entry) out = [[]];
    else {
      const myLoop = this.regionLoop(b);
      for (const p of this.dt.cfgPredecessors(b)) {
        if (!this.r.blockSet.has(p)) continue;
        if (myLoop && myLoop.header === b && myLoop.containsBlock(p)) continue; // back edge
        const pLoop = this.regionLoop(p);
        if (pLoop && !pLoop.containsBlock(b)) {
          // Leaving a deeper loop: its exit is always taken once it was entered.
          let outer: Loop = pLoop;
          while (outer.parent && this.r.loops.includes(outer.parent) && !outer.parent.containsBlock(b)) outer = outer.parent;
          out.push(...this.enter(outer));
          continue;
        }
        const edge = edgeCondition(this.se, p, b);
        out.push(...andDnf(this.levelCondition(p), edge));
      }
    }
    const simplified = simplifyDnf(out);
    this.reachMemo.set(b, simplified);
    return simplified;
  }

  /** Conditions to reach `b` within its level: always true at a loop header. */
  private levelCondition(b: BasicBlock): ScopConditionDnf {
    const l = this.regionLoop(b);
    return l && l.header === b ? [[]] : this.reach(b);
  }

  /** Conditions under which loop `l` is entered, relative to the level around it. */
  private enter(l: Loop): ScopConditionDnf {
    return this.reach(l.header);
  }

  /** The conditions under which `from` branches to `to`, a block outside the region (an error block). */
  errorDomainOf(from: BasicBlock, to: BasicBlock): ScopConditionDnf {
    return simplifyDnf(andDnf(this.domainOf(from), edgeCondition(this.se, from, to)));
  }

  domainOf(b: BasicBlock): ScopConditionDnf {
    let dnf = this.levelCondition(b);
    for (let l = this.regionLoop(b); l; l = l.parent && this.r.loops.includes(l.parent) ? l.parent : undefined) {
      dnf = simplifyDnf(andDnf(dnf, this.enter(l)));
    }
    return simplifyDnf(dnf);
  }
}

function conditionKey(c: ScopCondition): string {
  return `${c.lhs.id}${c.predicate}${c.rhs.id}`;
}

const complement: Record<IntPredicate, IntPredicate | undefined> = {
  slt: 'sge', sge: 'slt', sle: 'sgt', sgt: 'sle', eq: 'ne', ne: 'eq', ult: undefined, ule: undefined, ugt: undefined, uge: undefined,
};

function complementary(a: ScopCondition, b: ScopCondition): boolean {
  return a.lhs === b.lhs && a.rhs === b.rhs && complement[a.predicate] === b.predicate;
}

/**
 * Simplifies a DNF without a solver: repeated conditions and conjunctions go,
 * `(A && c) || (A && !c)` becomes `A`, and `A || (A && B)` becomes `A`.
 * A trivially true conjunction makes the whole condition true.
 */
export function simplifyDnf(dnf: readonly (readonly ScopCondition[])[]): ScopConditionDnf {
  let conjs: Map<string, ScopCondition>[] = [];
  const seen = new Set<string>();
  for (const conj of dnf) {
    const m = new Map<string, ScopCondition>();
    for (const c of conj) m.set(conditionKey(c), c);
    if (m.size === 0) return [[]];
    const key = [...m.keys()].sort().join('&');
    if (seen.has(key)) continue;
    seen.add(key);
    conjs.push(m);
  }
  for (let changed = true; changed && conjs.length > 1;) {
    changed = false;
    // Absorption: drop a conjunction that contains another one.
    conjs = conjs.filter((c, i) => !conjs.some((o, j) => j !== i && o.size <= c.size && (o.size < c.size || j < i) && [...o.keys()].every((k) => c.has(k))));
    // Resolution on a complementary pair.
    outer: for (let i = 0; i < conjs.length; i++) {
      for (let j = i + 1; j < conjs.length; j++) {
        const a = conjs[i]!;
        const b = conjs[j]!;
        if (a.size !== b.size) continue;
        const onlyA = [...a.entries()].filter(([k]) => !b.has(k));
        const onlyB = [...b.entries()].filter(([k]) => !a.has(k));
        if (onlyA.length !== 1 || onlyB.length !== 1 || !complementary(onlyA[0]![1], onlyB[0]![1])) continue;
        const common = new Map([...a].filter(([k]) => b.has(k)));
        if (common.size === 0) return [[]];
        conjs.splice(j, 1);
        conjs[i] = common;
        changed = true;
        break outer;
      }
    }
  }
  return conjs.map((m) => [...m.values()]);
}

// How evenly a parallel loop's iterations share out over the threads, counted on isl's AST at
// constant sizes (`--parallel`, codegen/parallel-loop.ts). A loop whose inner loops' bounds use
// its iterator runs unequal iterations (the tiles of a triangle); with few of them no static
// share is even: PolyBench syr2k's ic loop at LARGE runs 8 blocks of 168 rows of its `j <= i`
// triangle (the last 24 rows), instances ∝ 84, 252, ..., 1092, 1188 x 24 / 168, and its zigzag
// gives one thread blocks 1, 2, 5, 6, 62.7% of the work: two threads bounded at 1.59x one (the
// quiet run: 1.61). The loops inside (jr's micro-panels of each block, claimed one at a time)
// share out within each block. So where a loop with parallel loops inside has constant bounds,
// the count compares the busiest thread's instances of the loop's own share with the sum, over
// its iterations, of the busiest thread's instances of each run of the parallel loops inside
// (`descendForBalance`), and the threads go to the loops inside when that sum is smaller.
//
// The count walks the AST with the enclosing loops at their first iteration: per iteration of
// the loop, the statement instances below it, a loop whose body's shape does not move with its
// iterator counted once and multiplied by its trip count. A budget of evaluated nodes bounds it.
import type { AstExprTree, AstNodeTree } from 'isl-wasm';
import { mentions, parallelBound, shapedBy, shareOf, type Share } from './ast-to-ir';

type ForNode = Extract<AstNodeTree, { kind: 'for' }>;
type Env = Map<string, bigint>;

/** `env` with iterator `it` at `v` (set in place: each loop's iterator has a name of its own, and a loop's body is counted before the next value is set). */
function at(env: Env, it: string, v: bigint): Env {
  env.set(it, v);
  return env;
}

/** Evaluated nodes and expressions one count may spend before it gives up (PolyBench syr2k at LARGE: 433,425, about 0.1 s). */
const countBudget = 1_000_000;

/** The value of an isl AST expression with the iterators in `env`; undefined for a parameter or an operation the count does not know. */
export function evalAstExpr(e: AstExprTree, env: Env): bigint | undefined {
  if (e.kind === 'int') return e.value;
  if (e.kind === 'id') return env.get(e.name);
  const a = e.args.map((x) => evalAstExpr(x, env));
  if (a.some((x) => x === undefined)) return undefined;
  const v = a as bigint[];
  const truth = (b: boolean): bigint => (b ? 1n : 0n);
  switch (e.op) {
    case 'add': return v[0]! + v[1]!;
    case 'sub': return v[0]! - v[1]!;
    case 'mul': return v[0]! * v[1]!;
    case 'minus': return -v[0]!;
    case 'div':
    case 'pdiv_q': return v[1] === 0n ? undefined : v[0]! / v[1]!;
    case 'fdiv_q': {
      if (v[1] === 0n) return undefined;
      const q = v[0]! / v[1]!;
      return q * v[1]! !== v[0]! && (v[0]! < 0n) !== (v[1]! < 0n) ? q - 1n : q;
    }
    case 'pdiv_r':
    case 'zdiv_r': return v[1] === 0n ? undefined : v[0]! % v[1]!;
    case 'min': return v.reduce((x, y) => (y < x ? y : x));
    case 'max': return v.reduce((x, y) => (y > x ? y : x));
    case 'select':
    case 'cond': return v[0] !== 0n ? v[1] : v[2];
    case 'eq': return truth(v[0] === v[1]);
    case 'le': return truth(v[0]! <= v[1]!);
    case 'lt': return truth(v[0]! < v[1]!);
    case 'ge': return truth(v[0]! >= v[1]!);
    case 'gt': return truth(v[0]! > v[1]!);
    case 'and':
    case 'and_then': return truth(v[0] !== 0n && v[1] !== 0n);
    case 'or':
    case 'or_else': return truth(v[0] !== 0n || v[1] !== 0n);
    default: return undefined;
  }
}

/** The busiest of `threads` threads' summed work when `share` deals out iterations of the given works (codegen/ast-to-ir.ts, generateParallel). */
export function busiestThread(work: readonly number[], share: Share, threads: number): number {
  const load = new Array<number>(threads).fill(0);
  const n = work.length;
  work.forEach((w, q) => {
    let t: number;
    if (share === 'block') t = Math.floor(q / Math.ceil(n / threads));
    else if (share === 'zigzag') {
      const r = q % (2 * threads);
      t = r < threads ? r : 2 * threads - 1 - r;
    } else t = load.indexOf(Math.min(...load)); // dynamic: the next claim is the first thread free
    load[t]! += w;
  });
  return Math.max(...load);
}

class OverBudget extends Error {}

function iteratorName(loop: ForNode): string {
  return loop.iterator.kind === 'id' ? loop.iterator.name : '';
}

/** A count over one AST: statement instances, and the busiest thread's share of them. */
class Count {
  private spent = 0;

  constructor(
    private readonly threads: number, private readonly minWork: number, private readonly dynamic: boolean, private readonly threadable: (n: ForNode) => boolean,
  ) {}

  private spend(k = 1): void {
    this.spent += k;
    if (this.spent > countBudget) throw new OverBudget();
  }

  private value(e: AstExprTree, env: Env): bigint {
    this.spend();
    const v = evalAstExpr(e, env);
    if (v === undefined) throw new OverBudget();
    return v;
  }

  /** The values `loop`'s iterator takes: its first, step and count (by its bound when isl gave one, else by testing its condition). */
  range(loop: ForNode, env: Env): { first: bigint; inc: bigint; trips: number } {
    const first = this.value(loop.init, env);
    const inc = this.value(loop.inc, env);
    const bound = parallelBound(loop);
    if (bound && inc > 0n) {
      const last = this.value(bound.upper, env) - (bound.strict ? 1n : 0n);
      return { first, inc, trips: last < first ? 0 : Number((last - first) / inc) + 1 };
    }
    const it = iteratorName(loop);
    let trips = 0;
    for (let v = first; this.value(loop.cond, at(env, it, v)) !== 0n; v += inc) trips++;
    return { first, inc, trips };
  }

  /** The values of `loop`'s iterator, each spent from the budget. */
  iterations(loop: ForNode, env: Env): bigint[] {
    const { first, inc, trips } = this.range(loop, env);
    this.spend(trips);
    return Array.from({ length: trips }, (_, k) => first + BigInt(k) * inc);
  }

  /**
   * The cost of running `node`: statement instances, where `parallel` (inside a parallel loop
   * that is not counted as one) or else each run of a threadable loop counts its busiest thread.
   */
  cost(node: AstNodeTree, env: Env, enclosing: readonly ForNode[], parallel: boolean): number {
    this.spend();
    switch (node.kind) {
      case 'user':
        return 1;
      case 'block':
        return node.children.reduce((s, c) => s + this.cost(c, env, enclosing, parallel), 0);
      case 'mark':
        return this.cost(node.node, env, enclosing, parallel);
      case 'if':
        if (this.value(node.cond, env) !== 0n) return this.cost(node.then, env, enclosing, parallel);
        return node.else ? this.cost(node.else, env, enclosing, parallel) : 0;
      case 'for': {
        if (parallel && this.threadable(node)) return this.run(node, env, enclosing).busiest;
        const it = iteratorName(node);
        const inner = [...enclosing, node];
        if (!shapedBy(node.body, it)) {
          const { first, trips } = this.range(node, env);
          return trips === 0 ? 0 : trips * this.cost(node.body, at(env, it, first), inner, parallel);
        }
        const values = this.iterations(node, env);
        return values.reduce((s, v) => s + this.cost(node.body, at(env, it, v), inner, parallel), 0);
      }
    }
  }

  /**
   * One run of parallel loop `loop`: its statement instances and its busiest thread's. Equal
   * iterations (no bound inside uses its iterator) are counted once, the busiest thread then
   * running ceil(n / T) of them; a run of less than --parallel-min-work per thread runs serially
   * (the run-time test, codegen/parallel-loop.ts).
   */
  run(loop: ForNode, env: Env, enclosing: readonly ForNode[]): { total: number; busiest: number } {
    const it = iteratorName(loop);
    if (!shapedBy(loop.body, it)) {
      const { first, trips } = this.range(loop, env);
      const each = trips === 0 ? 0 : this.cost(loop.body, at(env, it, first), [...enclosing, loop], false);
      const total = trips * each;
      return { total, busiest: total < this.minWork * this.threads ? total : Math.ceil(trips / this.threads) * each };
    }
    const work = this.perIteration(loop, env, enclosing);
    const total = work.reduce((a, w) => a + w, 0);
    return { total, busiest: total < this.minWork * this.threads ? total : busiestThread(work, shareOf(loop, enclosing, this.dynamic), this.threads) };
  }

  /** Statement instances of each iteration of `loop`. */
  perIteration(loop: ForNode, env: Env, enclosing: readonly ForNode[]): number[] {
    const it = iteratorName(loop);
    const inner = [...enclosing, loop];
    return this.iterations(loop, env).map((v) => this.cost(loop.body, at(env, it, v), inner, false));
  }

  /** The busiest thread's instances of `loop`'s own share, and the sum over its iterations of those of the threadable loops inside. */
  compare(loop: ForNode, env: Env, enclosing: readonly ForNode[]): { total: number; own: number; inside: number } {
    const { total, busiest } = this.run(loop, env, enclosing);
    const it = iteratorName(loop);
    const inner = [...enclosing, loop];
    if (shapedBy(loop.body, it)) {
      const inside = this.iterations(loop, env).reduce((s, v) => s + this.cost(loop.body, at(env, it, v), inner, true), 0);
      return { total, own: busiest, inside };
    }
    const { first, trips } = this.range(loop, env);
    return { total, own: busiest, inside: trips === 0 ? 0 : trips * this.cost(loop.body, at(env, it, first), inner, true) };
  }
}

/**
 * The share of the busiest thread's instances the loops inside must save to be taken: a team
 * per run of theirs starts and joins, small against the least work the run-time test gives a
 * team (--parallel-min-work per thread) but not nothing.
 */
const leastGain = 0.05;

/**
 * Why `loop` (threadable, with threadable loops inside, inside `enclosing`) should leave the
 * threads to the loops inside it, or undefined: counted on `threads` threads with the enclosing
 * loops at their first iteration, the busiest threads of the loops inside run, summed over its
 * iterations, at least `leastGain` fewer instances than the busiest thread of its own share
 * (each run of theirs below `minWork` per thread counted serial, as the run-time test runs it).
 * Undefined too where the count cannot be made (a bound that is not a constant at those
 * iterations, or over the budget) or would not stand for every run: the loop's own bounds use an
 * enclosing loop's iterator (PolyBench symm's, whose first run is one iteration).
 */
export function descendForBalance(
  loop: ForNode, enclosing: readonly ForNode[], threadable: (n: ForNode) => boolean, threads: number, minWork: number, dynamic: boolean,
): string | undefined {
  if (threads < 2) return undefined;
  // A loop whose own bounds move with an enclosing loop (a wavefront's tiles, a triangle's row
  // tiles below its blocks) runs other iterations at each run: the first run is no sample of them.
  if (enclosing.some((l) => mentions(loop.init, iteratorName(l)) || mentions(loop.cond, iteratorName(l)))) return undefined;
  const count = new Count(threads, minWork, dynamic, threadable);
  const env: Env = new Map();
  try {
    for (const l of enclosing) {
      const { first, trips } = count.range(l, env);
      if (trips === 0) return undefined;
      env.set(iteratorName(l), first);
    }
    const { total, own, inside } = count.compare(loop, env, enclosing);
    if (total === 0 || inside > own * (1 - leastGain)) return undefined;
    const pct = (x: number): string => `${((100 * x) / total).toFixed(1)}%`;
    return `counted on ${threads} threads, its ${shareOf(loop, enclosing, dynamic)} share leaves the busiest thread ${pct(own)} of its ${total} statement instances, the parallel loops inside ${pct(inside)}: those run on the threads`;
  } catch (e) {
    if (e instanceof OverBudget) return undefined;
    throw e;
  }
}

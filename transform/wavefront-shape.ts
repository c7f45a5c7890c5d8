// The time tile height for wavefronts of time tiles (--parallel; transform/wavefront.ts), chosen
// by counting how evenly the wavefronts share out over the threads. A wavefront w = T0 + T1 runs
// its tiles' columns (one per T1, each all its T2.. tiles) on the threads, each claimed by the
// next free thread in T1 order (codegen/ast-to-ir.ts, the dynamic share); it ends when its
// busiest thread does. So two threads run a run of wavefronts in the sum of each wavefront's
// busiest share, and total / that sum bounds their speedup. That bound moves with the shape in
// steps: heat-3d at PolyBench LARGE (skew 2, widths 8) holds at most 8 columns per wavefront at
// height 4 (bound 1.845 on two threads), 7 at height 6 (1.952), 7 at height 7 (1.810), as the
// columns clipped at the space edges fall (bench/probes/wavefront-balance.c counts the same).
// Taller tiles also read less per instance, which one thread running the wavefront order needs
// more than the time band order (heat-3d LARGE at height 4: about 8% more CPU in wavefronts; at
// height 6, 3-7% less than at 4; user CPU, interleaved rounds under load).
//
// The count is over each statement's domain box (constant bounds; wavefronts need constant
// sizes anyway): for every value of the counters the first two band members use (the time
// counter and one space counter), the instances below them (the product of the other counters'
// extents) are added to their tile column (T0, T1). A few hundred thousand points for PolyBench's
// stencils at LARGE.

/** An affine function of a statement's counters: coefficients per counter, and a constant. */
export interface Linear {
  readonly coefficients: readonly number[];
  readonly constant: number;
}

/** One statement as the count sees it. */
export interface CountedStatement {
  /** Per counter, its least and greatest value over the domain (the domain's box). */
  readonly box: readonly (readonly [number, number])[];
  /** The band's time member and its first space member. */
  readonly time: Linear;
  readonly space: Linear;
}

/** What the count gives for one shape. */
export interface WavefrontBalance {
  /** Total instances over the sum of each wavefront's busiest thread's. */
  readonly bound: number;
  readonly wavefronts: number;
  /** Most columns in one wavefront. */
  readonly most: number;
}

/** Points the count may visit per shape; past it the shape is not counted. */
const maxPoints = 4_000_000;

/**
 * How evenly wavefronts of tiles of `height` along the time member and `width` along the first
 * space member share out over `threads` threads, claimed in T1 order by the least loaded thread;
 * undefined when the statements have too many points to count.
 */
export function wavefrontBalance(statements: readonly CountedStatement[], height: number, width: number, threads: number): WavefrontBalance | undefined {
  const columns = new Map<number, Map<number, number>>();
  let points = 0;
  for (const st of statements) {
    const used = st.box.map((_, k) => (st.time.coefficients[k] ?? 0) !== 0 || (st.space.coefficients[k] ?? 0) !== 0);
    const extent = (k: number): number => Math.max(0, st.box[k]![1] - st.box[k]![0] + 1);
    // Instances below each point of the used counters.
    const below = st.box.reduce((p, _, k) => (used[k] ? p : p * extent(k)), 1);
    const dims = st.box.map((_, k) => k).filter((k) => used[k]);
    const count = dims.reduce((p, k) => p * extent(k), 1);
    if (below === 0 || count === 0) continue;
    points += count;
    if (points > maxPoints) return undefined;
    const at = dims.map((k) => st.box[k]![0]);
    // The two members at the current point, kept up to date as the counters step.
    const ct = dims.map((k) => st.time.coefficients[k] ?? 0);
    const cs = dims.map((k) => st.space.coefficients[k] ?? 0);
    let time = dims.reduce((s, _, q) => s + ct[q]! * at[q]!, st.time.constant);
    let space = dims.reduce((s, _, q) => s + cs[q]! * at[q]!, st.space.constant);
    // Consecutive points mostly fall in one column: add them up before the maps see them.
    let key: [number, number] | undefined;
    let pending = 0;
    const flush = (): void => {
      if (!key) return;
      let front = columns.get(key[0]);
      if (!front) columns.set(key[0], (front = new Map()));
      front.set(key[1], (front.get(key[1]) ?? 0) + pending);
    };
    for (let n = 0; n < count; n++) {
      const t1 = Math.floor(space / width);
      const w = Math.floor(time / height) + t1;
      if (key && key[0] === w && key[1] === t1) pending += below;
      else {
        flush();
        key = [w, t1];
        pending = below;
      }
      // Next point: the innermost used counter first.
      for (let q = dims.length - 1; q >= 0; q--) {
        const [lo, hi] = st.box[dims[q]!]!;
        if (at[q]! < hi) {
          at[q]!++;
          time += ct[q]!;
          space += cs[q]!;
          break;
        }
        time -= ct[q]! * (hi - lo);
        space -= cs[q]! * (hi - lo);
        at[q] = lo;
      }
    }
    flush();
  }
  let total = 0;
  let critical = 0;
  let most = 0;
  for (const front of columns.values()) {
    const load = new Array<number>(threads).fill(0);
    const order = [...front.keys()].sort((a, b) => a - b);
    most = Math.max(most, order.length);
    for (const t1 of order) {
      const work = front.get(t1)!;
      total += work;
      let least = 0;
      for (let t = 1; t < threads; t++) if (load[t]! < load[least]!) least = t;
      load[least] = load[least]! + work;
    }
    critical += Math.max(...load);
  }
  return { bound: critical === 0 ? 1 : total / critical, wavefronts: columns.size, most };
}

/** A height whose count beats the first choice's by less than this (relative) keeps the first. */
const worthIt = 0.01;

/**
 * The time tile height for wavefronts: of `height` (the single-thread choice) up to twice it,
 * those whose tile data still fits (`fits`), the one whose wavefronts share out best over
 * `threads` threads; `height` unless another's bound is at least 1% higher. With the count
 * behind the choice, for the report.
 */
export function wavefrontHeight(
  statements: readonly CountedStatement[], height: number, width: number, threads: number, fits: (height: number) => boolean,
): { height: number; why: string } | undefined {
  if (threads < 2) return undefined;
  const first = wavefrontBalance(statements, height, width, threads);
  if (!first) return undefined;
  let best = { height, balance: first };
  for (let h = height + 1; h <= 2 * height; h++) {
    if (!fits(h)) continue;
    const balance = wavefrontBalance(statements, h, width, threads);
    if (balance && balance.bound > best.balance.bound) best = { height: h, balance };
  }
  const kept = best.height === height || best.balance.bound < first.bound * (1 + worthIt);
  const chosen = kept ? { height, balance: first } : best;
  const at = (h: number, b: WavefrontBalance): string => `height ${h}: ${b.wavefronts} wavefronts of at most ${b.most} columns, bound ${b.bound.toFixed(3)}`;
  return {
    height: chosen.height,
    why: kept
      ? `wavefronts on ${threads} threads counted: ${at(height, first)}, no taller height that fits shares out better`
      : `wavefronts on ${threads} threads counted: ${at(best.height, best.balance)} against ${at(height, first)}`,
  };
}

// What "slower than clang -O3 beyond noise" means in the benchmark. The rounds are interleaved
// (each round runs every variant once, in turn), so a round's two times were taken under nearly
// the same machine load and their ratio is one paired sample of the speedup; the min-max spread
// of those per-round speedups is the noise band the run itself measured.
//
// The verdict is a sign test, corrected for the number of comparisons the run makes. With no real
// difference each round falls below 1 with probability 1/2, independently of the others, so the
// chance that at least k of n rounds fall below 1 is P(X >= k), X ~ Binomial(n, 1/2): that is the
// comparison's one-sided p-value for "slower" (likewise for "faster", with the rounds above 1;
// rounds exactly at 1 are left out). A run makes many comparisons (every variant against clang
// on every program: 54 for 18 kernels and three variants), and at p < 0.05 each it would call
// about one of every 20 identical pairs different; so a variant is slower only when its p-value
// is below FAMILY_LEVEL divided by the run's number of comparisons (Bonferroni): the chance that
// the run calls ANY comparison slower when nothing differs is then below 5%. The smallest p-value
// n rounds can give is 2^-n (every round below 1); a comparison with fewer rounds than needed
// for 2^-n to reach the level is `too-few-rounds`, never `within-noise`, whatever its rounds say.

/** The variant every other is compared with: clang -O3. */
export const BASELINE = 'clang';
/** The OpenBLAS variant (bench/limit.ts): a reference for the BLAS-3 kernels, not a compiler. */
export const LIMIT = 'limit';

/** The family-wise level: the chance that a run calls anything slower (or faster) by noise alone. */
export const FAMILY_LEVEL = 0.05;

/**
 * `not-slower`: a comparison whose rounds stopped before the run's planned number (`--min-repeat`)
 * once no later round could have made it slower; whether it is faster was left open.
 */
export type Verdict = 'slower' | 'faster' | 'within-noise' | 'not-slower' | 'too-few-rounds';

export interface NoiseBand {
  /** Per round: the baseline's time over the variant's (above 1: the variant was faster that round). */
  roundSpeedups: number[];
  /** The smallest and largest per-round speedup. */
  spread: [number, number];
  /** Rounds whose speedup is below 1 (the variant slower) and above 1. */
  roundsBelow: number;
  roundsAbove: number;
  /** The sign test's one-sided p-values: P(at least roundsBelow of the untied rounds below 1) by chance, and the same above 1. */
  pSlower: number;
  pFaster: number;
}

/**
 * The paired per-round speedups of a variant against the baseline, their spread and their sign
 * test. `baseline[r]` and `variant[r]` must come from the same round r; rounds where either time
 * is missing or not positive are left out. Undefined when no round pairs up.
 */
export function noiseBand(baseline: readonly number[], variant: readonly number[]): NoiseBand | undefined {
  const roundSpeedups: number[] = [];
  for (let r = 0; r < Math.min(baseline.length, variant.length); r++) {
    if (baseline[r] > 0 && variant[r] > 0) roundSpeedups.push(baseline[r] / variant[r]);
  }
  if (roundSpeedups.length === 0) return undefined;
  const roundsBelow = roundSpeedups.filter((s) => s < 1).length;
  const roundsAbove = roundSpeedups.filter((s) => s > 1).length;
  const untied = roundsBelow + roundsAbove;
  return {
    roundSpeedups,
    spread: [Math.min(...roundSpeedups), Math.max(...roundSpeedups)],
    roundsBelow,
    roundsAbove,
    pSlower: binomialTail(untied, roundsBelow),
    pFaster: binomialTail(untied, roundsAbove),
  };
}

/** P(X >= k) for X ~ Binomial(n, 1/2). */
export function binomialTail(n: number, k: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  // C(n, i) / 2^n from i = n down to k, each term from the last in logarithms (2^-n alone
  // underflows past n = 1074).
  let logTerm = -n * Math.LN2;
  let sum = Math.exp(logTerm);
  for (let i = n; i > k; i--) {
    logTerm += Math.log(i) - Math.log(n - i + 1);
    sum += Math.exp(logTerm);
  }
  return Math.min(1, sum);
}

/** The run's rule: how many comparisons share the level, the threshold each p-value must be below, and the rounds that can reach it. */
export interface SignTestRule {
  level: number;
  comparisons: number;
  /** level / comparisons (Bonferroni). */
  threshold: number;
  /** The fewest rounds n with 2^-n below the threshold: with fewer, no comparison can be called either way. */
  roundsNeeded: number;
}

export function signTestRule(comparisons: number, level = FAMILY_LEVEL): SignTestRule {
  const threshold = level / Math.max(1, comparisons);
  let roundsNeeded = 1;
  while (Math.pow(0.5, roundsNeeded) >= threshold) roundsNeeded++;
  return { level, comparisons, threshold, roundsNeeded };
}

/** The verdict of one comparison under the run's rule. */
export function verdictOf(band: Pick<NoiseBand, 'roundsBelow' | 'roundsAbove' | 'pSlower' | 'pFaster'>, rule: SignTestRule): Verdict {
  if (band.roundsBelow + band.roundsAbove < rule.roundsNeeded) return 'too-few-rounds';
  if (band.pSlower < rule.threshold) return 'slower';
  if (band.pFaster < rule.threshold) return 'faster';
  return 'within-noise';
}

/**
 * The verdict the run's planned rounds will give, decided from the rounds so far with `remaining`
 * rounds not taken: `slower` (`faster`) when even the remaining rounds all on the other side of 1
 * would leave its p-value below the threshold; `too-few-rounds` while slower is still reachable;
 * else `within-noise` when faster is out of reach too and the rounds taken are enough, and
 * `not-slower` when not (faster still reachable, or the remaining rounds could all tie). With no rounds
 * remaining this is `verdictOf`. Stopping once this is not `too-few-rounds` gives the verdict the
 * full run would (a curtailed sign test): the rounds skipped could not have changed it.
 */
export function verdictWithRemaining(
  band: Pick<NoiseBand, 'roundsBelow' | 'roundsAbove'>,
  rule: SignTestRule,
  remaining: number,
): Verdict {
  const rest = Math.max(0, remaining);
  if (rest === 0) {
    const untied = band.roundsBelow + band.roundsAbove;
    return verdictOf({ ...band, pSlower: binomialTail(untied, band.roundsBelow), pFaster: binomialTail(untied, band.roundsAbove) }, rule);
  }
  const untied = band.roundsBelow + band.roundsAbove;
  const most = untied + rest;
  const enough = most >= rule.roundsNeeded;
  // Certain: even with every remaining round on the other side (the largest p-value; rounds
  // tied at 1 would only lower it, but need the rounds already taken to be enough).
  const certain = (k: number) => untied >= rule.roundsNeeded && binomialTail(most, k) < rule.threshold;
  const reachable = (k: number) => enough && binomialTail(most, k + rest) < rule.threshold;
  if (certain(band.roundsBelow)) return 'slower';
  if (certain(band.roundsAbove)) return 'faster';
  if (reachable(band.roundsBelow)) return 'too-few-rounds';
  // Within noise needs enough untied rounds whatever the remaining ones are (they might tie).
  return reachable(band.roundsAbove) || untied < rule.roundsNeeded ? 'not-slower' : 'within-noise';
}

/**
 * `0.97x [0.932-1.021]`: the median speedup and the band of the per-round speedups (three
 * decimals, so that a band just below 1 does not print as reaching it).
 */
export function formatBand(speedup: number, band: { spread?: [number, number] } | undefined): string {
  const s = `${speedup.toFixed(2)}x`;
  return band?.spread ? `${s} [${band.spread[0].toFixed(3)}-${band.spread[1].toFixed(3)}]` : s;
}

/** A p-value in two significant digits: `0.00098`, `0.50`, `1.0`. */
export function formatP(p: number): string {
  return p.toPrecision(2);
}

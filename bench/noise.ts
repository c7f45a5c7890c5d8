// What "slower than clang -O3 beyond noise" means in the benchmark: the rounds are interleaved
// (each round runs every variant once, in turn), so a round's two times were taken under nearly
// the same machine load and their ratio is one paired sample of the speedup. The spread of those
// per-round speedups is the noise band the run itself measured; a variant is slower (or faster)
// than the baseline only when every round says so, i.e. when the whole band lies below (above) 1.
// With n rounds and no real difference, all n rounds fall below 1 with probability 2^-n (a sign
// test): 1/32 at the default 5 rounds. Fewer than MIN_ROUNDS rounds decide nothing.

/** The variant every other is compared with: clang -O3. */
export const BASELINE = 'clang';

/** Below this many paired rounds the band is too thin to call a difference. */
export const MIN_ROUNDS = 3;

export type Verdict = 'slower' | 'faster' | 'within-noise' | 'too-few-rounds';

export interface NoiseBand {
  /** Per round: the baseline's time over the variant's (above 1: the variant was faster that round). */
  roundSpeedups: number[];
  /** The smallest and largest per-round speedup. */
  spread: [number, number];
  verdict: Verdict;
}

/**
 * The paired per-round speedups of a variant against the baseline, their spread and what they
 * say. `baseline[r]` and `variant[r]` must come from the same round r; rounds where either time
 * is missing or not positive are left out. Undefined when no round pairs up.
 */
export function noiseBand(baseline: readonly number[], variant: readonly number[]): NoiseBand | undefined {
  const roundSpeedups: number[] = [];
  for (let r = 0; r < Math.min(baseline.length, variant.length); r++) {
    if (baseline[r] > 0 && variant[r] > 0) roundSpeedups.push(baseline[r] / variant[r]);
  }
  if (roundSpeedups.length === 0) return undefined;
  const spread: [number, number] = [Math.min(...roundSpeedups), Math.max(...roundSpeedups)];
  let verdict: Verdict = 'within-noise';
  if (roundSpeedups.length < MIN_ROUNDS) verdict = 'too-few-rounds';
  else if (spread[1] < 1) verdict = 'slower';
  else if (spread[0] > 1) verdict = 'faster';
  return { roundSpeedups, spread, verdict };
}

/**
 * `0.97x [0.932-1.021]`: the median speedup and the band of the per-round speedups (three
 * decimals, so that a band just below 1 does not print as reaching it).
 */
export function formatBand(speedup: number, band: { spread?: [number, number] } | undefined): string {
  const s = `${speedup.toFixed(2)}x`;
  return band?.spread ? `${s} [${band.spread[0].toFixed(3)}-${band.spread[1].toFixed(3)}]` : s;
}

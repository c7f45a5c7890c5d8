// The bench's noise band and sign test (bench/noise.ts) on synthetic times: per-round speedups
// against the baseline, their min-max spread, the one-sided p-values, and "slower/faster than
// clang -O3" only when the p-value is below the family level over the run's comparisons.
import { binomialTail, formatBand, noiseBand, signTestRule, verdictOf, verdictWithRemaining, type Verdict } from '../../bench/noise';
import type { BenchRun } from '../../bench/results-files';
import { slowerLine, slowerThanPollyLine, toCsv, toTable } from '../../bench/results-files';
import { judgeRun, programSettled, summarizeVariants, type SuiteResult, type VariantResult } from '../../bench/harness';

const clang = [1.0, 1.2, 0.9, 1.1, 1.0, 1.05, 0.95, 1.3, 1.0, 1.1];
const scaled = (f: number) => clang.map((t) => t * f);

test('the sign test: P(at least k of n fair coin flips), the rule for a run of m comparisons', () => {
  expect(binomialTail(5, 5)).toBeCloseTo(1 / 32, 15);
  expect(binomialTail(10, 10)).toBeCloseTo(1 / 1024, 15);
  expect(binomialTail(10, 9)).toBeCloseTo(11 / 1024, 15);
  expect(binomialTail(10, 5)).toBeCloseTo(638 / 1024, 15);
  expect(binomialTail(10, 0)).toBe(1);
  expect(binomialTail(0, 0)).toBe(1);
  expect(binomialTail(3, 4)).toBe(0);
  // Large n stays finite (2^-n alone underflows past 1074).
  expect(binomialTail(2000, 1000)).toBeCloseTo(0.5 + 0.5 * 0.01784, 3);
  // The fewest rounds n with 2^-n < 0.05/m: 5 for one comparison, 10 for 36, 11 for 18 kernels x 3 variants.
  expect(signTestRule(1)).toEqual({ level: 0.05, comparisons: 1, threshold: 0.05, roundsNeeded: 5 });
  expect(signTestRule(8).roundsNeeded).toBe(8);
  expect(signTestRule(36).roundsNeeded).toBe(10);
  expect(signTestRule(54)).toMatchObject({ comparisons: 54, roundsNeeded: 11 });
  expect(signTestRule(54).threshold).toBeCloseTo(0.05 / 54, 15);
});

test('a variant slower in every round is slower beyond noise, even when its median speedup is near 1', () => {
  const band = noiseBand(clang, [1.02, 1.25, 0.93, 1.12, 1.05, 1.06, 0.97, 1.31, 1.04, 1.15])!;
  expect(band.roundSpeedups.map((x) => +x.toFixed(4))).toEqual([0.9804, 0.96, 0.9677, 0.9821, 0.9524, 0.9906, 0.9794, 0.9924, 0.9615, 0.9565]);
  expect(band.spread.map((x) => +x.toFixed(4))).toEqual([0.9524, 0.9924]);
  expect(band).toMatchObject({ roundsBelow: 10, roundsAbove: 0, pFaster: 1 });
  expect(band.pSlower).toBeCloseTo(1 / 1024, 15);
  expect(verdictOf(band, signTestRule(36))).toBe('slower');
});

test('the number of comparisons matters: the same rounds are slower alone, not among many', () => {
  // Nine rounds of ten slower: p = 11/1024 = 0.011.
  const nineOfTen = noiseBand(clang, scaled(1.05).map((t, r) => (r === 3 ? t / 1.2 : t)))!;
  expect(nineOfTen).toMatchObject({ roundsBelow: 9, roundsAbove: 1 });
  expect(verdictOf(nineOfTen, signTestRule(1))).toBe('slower');
  expect(verdictOf(nineOfTen, signTestRule(4))).toBe('slower');
  expect(verdictOf(nineOfTen, signTestRule(5))).toBe('within-noise');
  // Ten of ten (p = 1/1024) is below 0.05/36 but not 0.05/54: ten rounds cannot tell 54 comparisons.
  const tenOfTen = noiseBand(clang, scaled(1.05))!;
  expect(verdictOf(tenOfTen, signTestRule(36))).toBe('slower');
  expect(verdictOf(tenOfTen, signTestRule(54))).toBe('too-few-rounds');
  const elevenOfEleven = noiseBand([...clang, 1], [...scaled(1.05), 1.05])!;
  expect(verdictOf(elevenOfEleven, signTestRule(54))).toBe('slower');
});

test('rounds on both sides of 1 put the difference within noise; faster in every round is faster', () => {
  // Seven rounds 10% slower, three faster (bursts of load on clang's runs): not beyond noise.
  const mixed = noiseBand(clang, scaled(1.1).map((t, r) => (r % 3 === 1 ? t / 1.3 : t)))!;
  expect(mixed).toMatchObject({ roundsBelow: 7, roundsAbove: 3 });
  expect(mixed.pSlower).toBeCloseTo(176 / 1024, 15);
  expect(verdictOf(mixed, signTestRule(1))).toBe('within-noise');
  const faster = noiseBand(clang, scaled(0.5))!;
  expect(faster.pFaster).toBeCloseTo(1 / 1024, 15);
  expect(verdictOf(faster, signTestRule(36))).toBe('faster');
});

test('rounds pair by index; missing or zero times are left out, and so are ties', () => {
  const band = noiseBand([1, 1, 1], [2, 0, 2])!;
  expect(band).toMatchObject({ roundSpeedups: [0.5, 0.5], spread: [0.5, 0.5], roundsBelow: 2, roundsAbove: 0, pFaster: 1 });
  expect(band.pSlower).toBeCloseTo(0.25, 15);
  expect(verdictOf(band, signTestRule(1))).toBe('too-few-rounds');
  // Five rounds below 1 and one tie: five untied rounds, p = 1/32 < 0.05.
  const tie = noiseBand([1, 1, 1, 1, 1, 1], [2, 2, 1, 2, 2, 2])!;
  expect(tie).toMatchObject({ roundsBelow: 5, roundsAbove: 0 });
  expect(tie.pSlower).toBeCloseTo(1 / 32, 15);
  expect(verdictOf(tie, signTestRule(1))).toBe('slower');
  expect(noiseBand([], [1, 2])).toBeUndefined();
});

test('judgeRun: the family is every comparison of the run, across suites', () => {
  const result = (variant: number[]): VariantResult => ({ status: 'ok', times: variant, ...noiseBand(clang, variant) });
  const suite = (name: string, variants: Record<string, VariantResult>): SuiteResult => ({ name, geomean: {}, programs: [{ name: 'k', variants: { clang: { status: 'ok', times: clang }, ...variants } }] });
  const slow = result(scaled(1.05));
  const suites = [suite('a', { tscc: slow, pipe: result(scaled(0.5)) }), suite('b', { tscc: result(scaled(1)), broken: { status: 'mismatch', times: [] } })];
  // Three comparisons (the mismatch has no rounds): threshold 0.05/3, reachable from 6 rounds;
  // suite b's tscc ties clang in every round, so it has no untied round to decide on.
  expect(judgeRun(suites)).toMatchObject({ comparisons: 3, roundsNeeded: 6 });
  expect(suites.map((s) => Object.entries(s.programs[0].variants).map(([v, r]) => `${v}:${r.verdict}`).join(' '))).toEqual([
    'clang:undefined tscc:slower pipe:faster', 'clang:undefined tscc:too-few-rounds broken:undefined']);
  // At a level 20 times stricter (as among 60 comparisons) 10 rounds cannot reach the threshold.
  expect(judgeRun(suites, 0.05 / 20)).toMatchObject({ comparisons: 3, roundsNeeded: 11 });
  expect(slow.verdict).toBe('too-few-rounds');
});

test('formatBand prints the median speedup and the band', () => {
  expect(formatBand(0.9712, { spread: [0.93, 1.021] })).toBe('0.97x [0.930-1.021]');
  // A band just below 1 must not print as reaching it.
  expect(formatBand(0.94, { spread: [0.89, 0.998] })).toBe('0.94x [0.890-0.998]');
  expect(formatBand(1.5, {})).toBe('1.50x');
});

function run(repeat: number, tscc: Partial<VariantResult>, statistics = signTestRule(2)): BenchRun {
  const ok = (r: Partial<VariantResult>): VariantResult => ({ status: 'ok', times: [], ...r });
  return {
    date: '2026-11-22T00:00:00Z', dataset: 'LARGE', repeat, statistics, tolerances: {}, notes: [],
    variants: [{ name: 'clang', command: 'clang-14 -O3' }, { name: 'tscc', command: 'tscc -O3' }],
    suites: [{
      name: 'kernels',
      geomean: { clang: 1, tscc: 1 },
      programs: [
        { name: 'trmm', variants: { clang: ok({ median: 2, processMedian: 2.5 }), tscc: ok({ median: 2.06, speedup: 0.9709, spread: [0.95, 0.98], roundsBelow: 6, roundsAbove: 0, pSlower: 1 / 64, pFaster: 1, verdict: 'slower', processMedian: 2.56, ...tscc }) } },
        { name: 'mvt', variants: { clang: ok({ median: 1 }), tscc: ok({ median: 1.01, speedup: 0.99, spread: [0.9, 1.1], roundsBelow: 4, roundsAbove: 2, pSlower: 22 / 64, pFaster: 57 / 64, verdict: 'within-noise' }) } },
      ],
    }],
  };
}

test('the table marks and lists only the variants slower beyond noise, with their p-values; the CSV carries band, verdict and p-values', () => {
  const r = run(6, {});
  const table = toTable(r);
  expect(table).toContain('speedup over clang -O3 (median of 6 rounds); < slower beyond noise (sign test, p < 0.05/2 = 0.025); bands and p-values: results.csv\n');
  expect(table).toMatch(/^trmm\s+2\.00s\s+0\.97x <\s+-\s+-$/m);
  expect(table).toMatch(/^mvt\s+1\.00s\s+0\.99x\s+-\s+-$/m);
  // Columns as wide as their cells (a cell per variant used to take 42): this table stays under 60.
  expect(Math.max(...table.split('\n').filter((l) => !/^(speedup|slower)/.test(l)).map((l) => l.length))).toBeLessThan(60);
  expect(table).toContain('slower than clang -O3 beyond noise (sign test, p < 0.05/2 = 0.025): tscc trmm 0.97x [0.950-0.980] p=0.016\n');
  const csv = toCsv(r).split('\n');
  expect(csv[0]).toMatch(/,speedup_round_min,speedup_round_max,verdict,p_slower,p_faster,process_median_s,share_of_limit,vs_polly_round_min,vs_polly_round_max,vs_polly_verdict,vs_polly_p_slower$/);
  expect(csv).toContain('kernels,trmm,clang,ok,2.00000,,,0,,,,,,,,,2.50000,,,,,');
  expect(csv).toContain('kernels,trmm,tscc,ok,2.06000,0.9709,,0,,,,0.9500,0.9800,slower,0.01563,1.000,2.56000,,,,,');
  expect(csv).toContain('kernels,mvt,tscc,ok,1.01000,0.9900,,0,,,,0.9000,1.1000,within-noise,0.3438,0.8906,,,,,,');
  expect(csv).toContain('kernels,geomean,tscc,ok,,1.0000,,,,,,,,,,,,,,,,');
});

test('with --profile, the table gives tscc-prof and tscc-profgen over tscc from the same rounds (what the profile adds, what the instrumentation costs)', () => {
  const r = run(3, { times: [2.0, 2.1, 2.06], processTimes: [2.5, 2.6, 2.55] });
  r.variants.push({ name: 'tscc-profgen', command: 'tscc -O3 -ftsopt-profile-generate=...' }, { name: 'tscc-prof', command: 'tscc -O3 -ftsopt-profile-use=...' });
  r.suites[0].programs[0].variants['tscc-profgen'] = { status: 'ok', times: [2.2, 2.1, 2.3], median: 2.2, speedup: 0.909 };
  r.suites[0].programs[0].variants['tscc-prof'] = { status: 'ok', times: [1.0, 1.05, 1.03], processTimes: [1.5, 1.3, 1.4], median: 1.03, speedup: 1.9417 };
  const table = toTable(r);
  expect(table).toMatch(/^program\s+clang\s+tscc\s+tscc-profgen\s+tscc-prof\s+tscc\/polly\s+tscc-prof\/tscc\s+tscc-profgen\/tscc\s+check \(share\)$/m);
  // trmm, per round: tscc over tscc-prof 2.0 each (process CPU 1.67, 2.0, 1.82), over tscc-profgen 0.91, 1.0, 0.90 (no CPU times).
  expect(table).toMatch(/^trmm\s+2\.00s\s+0\.97x <\s+0\.91x\s+1\.94x\s+-\s+2\.00x \[2\.000-2\.000\] cpu 1\.82x\s+0\.91x \[0\.896-1\.000\]\s+-$/m);
  // mvt has no results of either.
  expect(table).toMatch(/^mvt\s+1\.00s\s+0\.99x\s+-\s+-\s+-\s+-\s+-\s+-$/m);
  // Without the profile variants there are no such columns.
  expect(toTable(run(6, {}))).not.toMatch(/tscc-prof(gen)?\/tscc/);
});

test('without a slower verdict the line says none, and says when the run had too few rounds to tell', () => {
  const calm = run(6, { verdict: 'within-noise' });
  expect(slowerLine(calm, calm.suites[0])).toBe('slower than clang -O3 beyond noise (sign test, p < 0.05/2 = 0.025): none');
  const one = run(1, { verdict: 'too-few-rounds' }, signTestRule(8));
  expect(slowerLine(one, one.suites[0])).toBe(
    'slower than clang -O3 beyond noise (sign test, p < 0.05/8 = 0.0063): none (1 round: at least 8 are needed to tell with 8 comparisons)');
});

test('one comparison, five rounds all slower (as clang -O0 against -O3): slower beyond noise, p = 1/32, listed under the table', () => {
  const o3 = [0.010, 0.011, 0.010, 0.012, 0.010];
  const o0 = [0.031, 0.030, 0.035, 0.029, 0.033];
  const slow: VariantResult = { status: 'ok', times: o0, median: 0.031, speedup: 0.010 / 0.031, ...noiseBand(o3, o0) };
  const suites: SuiteResult[] = [{ name: 'kernels', geomean: {}, programs: [{ name: 'gemm', variants: { clang: { status: 'ok', times: o3 }, slow } }] }];
  const rule = judgeRun(suites);
  expect(rule).toMatchObject({ comparisons: 1, roundsNeeded: 5 });
  expect(slow).toMatchObject({ roundsBelow: 5, verdict: 'slower' });
  expect(slow.pSlower).toBeCloseTo(1 / 32, 12);
  const benchRun: BenchRun = {
    date: '2026-11-26T00:00:00Z', dataset: 'MINI', repeat: 5, statistics: rule, tolerances: {}, notes: [],
    variants: [{ name: 'clang', command: 'clang-14 -O3' }, { name: 'slow', command: 'clang-14 -O0' }], suites,
  };
  expect(slowerLine(benchRun, suites[0])).toMatch(/^slower than clang -O3 beyond noise \(sign test, p < 0\.05\/1 = 0\.050\): slow gemm 0\.32x \[0\.[0-9]{3}-0\.[0-9]{3}\] p=0\.031$/);
  // One of the five rounds faster (a burst of load on clang's run): no longer beyond noise.
  const o0OneFast = [...o0.slice(0, 4), 0.009];
  const mixed: VariantResult = { status: 'ok', times: o0OneFast, ...noiseBand(o3, o0OneFast) };
  judgeRun([{ name: 'kernels', geomean: {}, programs: [{ name: 'gemm', variants: { clang: { status: 'ok', times: o3 }, slow: mixed } }] }]);
  expect(mixed).toMatchObject({ roundsBelow: 4, roundsAbove: 1, verdict: 'within-noise' });
});

test('stopping early (--min-repeat): the verdict after n of N rounds is the one every way of finishing the N rounds gives', () => {
  // Exhaustive over N = 7 rounds, each below, above or tied with clang, under a rule of 5 rounds
  // (one comparison) and of 7 (four): whenever verdictWithRemaining decides, every completion
  // of the rounds agrees with it under verdictOf.
  const outcomes = [0.5, 2, 1]; // the variant's time against clang's 1: faster, slower, tied
  for (const rule of [signTestRule(1), signTestRule(4)]) {
    const N = 7;
    for (let code = 0; code < 3 ** N; code++) {
      const times = Array.from({ length: N }, (_, r) => outcomes[Math.floor(code / 3 ** r) % 3]);
      for (let n = 0; n <= N; n++) {
        const band = noiseBand(Array(n).fill(1), times.slice(0, n)) ?? { roundsBelow: 0, roundsAbove: 0 };
        const early = verdictWithRemaining(band, rule, N - n);
        if (early === 'too-few-rounds') continue;
        const final: Verdict = verdictOf(noiseBand(Array(N).fill(1), times)!, rule);
        if (early === 'not-slower') expect(final).not.toBe('slower');
        else expect(final).toBe(early);
      }
    }
  }
  // 120 comparisons (30 kernels, two builds, Polly and tscc, tscc against Polly): 12 rounds.
  const rule = signTestRule(120);
  expect(rule.roundsNeeded).toBe(12);
  // Three rounds faster: slower is out of reach (it needs all twelve), faster is not yet.
  expect(verdictWithRemaining({ roundsBelow: 0, roundsAbove: 3 }, rule, 9)).toBe('not-slower');
  // One round each way: neither can be reached any more; within noise once the rounds are enough
  // (before, the remaining rounds could all tie and leave too few to tell: not slower, all the same).
  expect(verdictWithRemaining({ roundsBelow: 1, roundsAbove: 2 }, rule, 9)).toBe('not-slower');
  expect(verdictWithRemaining({ roundsBelow: 6, roundsAbove: 7 }, signTestRule(120), 3)).toBe('within-noise');
  // Every round slower so far: the remaining rounds decide.
  expect(verdictWithRemaining({ roundsBelow: 3, roundsAbove: 0 }, rule, 9)).toBe('too-few-rounds');
  expect(verdictWithRemaining({ roundsBelow: 12, roundsAbove: 0 }, rule, 0)).toBe('slower');
});

test('programSettled: a program stops once tscc against clang and against Polly are decided, not before, and does not wait for Polly\'s own', () => {
  const rule = signTestRule(120);
  const ok = (times: number[]): VariantResult => ({ status: 'ok', times });
  // tscc faster than both in all three rounds; Polly slower than clang in one: settled.
  expect(programSettled({ clang: ok([1, 1, 1]), polly: ok([0.9, 1.1, 0.8]), tscc: ok([0.5, 0.5, 0.5]) }, rule, 9)).toBe(true);
  // tscc slower than clang in every round: not settled.
  expect(programSettled({ clang: ok([1, 1, 1]), polly: ok([0.9, 1.1, 0.8]), tscc: ok([1.1, 1.1, 1.1]) }, rule, 9)).toBe(false);
  // tscc faster than clang but slower than Polly in every round: not settled.
  expect(programSettled({ clang: ok([1, 1, 1]), polly: ok([0.5, 0.5, 0.5]), tscc: ok([0.6, 0.6, 0.6]) }, rule, 9)).toBe(false);
  // ... and settled once one round puts tscc ahead of Polly.
  expect(programSettled({ clang: ok([1, 1, 1, 1]), polly: ok([0.5, 0.5, 0.5, 0.7]), tscc: ok([0.6, 0.6, 0.6, 0.6]) }, rule, 8)).toBe(true);
  // Polly slower than clang in every round: its own verdict is not waited for where tscc's is decided.
  expect(programSettled({ clang: ok([1, 1, 1]), polly: ok([30, 30, 30]), tscc: ok([0.5, 0.6, 0.5]) }, rule, 9)).toBe(true);
  // ... but without a tsopt variant in the run, every variant's is.
  expect(programSettled({ clang: ok([1, 1, 1]), polly: ok([30, 30, 30]) }, rule, 9)).toBe(false);
  // The limit is a reference, not a comparison: OpenBLAS far ahead does not hold the program.
  expect(programSettled({ clang: ok([1, 1, 1]), tscc: ok([0.5, 0.6, 0.5]), limit: ok([0.1, 0.1, 0.1]) }, rule, 9)).toBe(true);
});

test('tscc against Polly: its band and verdict, the < mark in tscc/polly, the line under the table, and the rounds of an early-stopping run', () => {
  const variants: Record<string, VariantResult> = {
    clang: { status: 'ok', times: [2, 2, 2, 2, 2, 2] },
    polly: { status: 'ok', times: [1, 1, 1, 1, 1, 1] },
    tscc: { status: 'ok', times: [1.1, 1.05, 1.2, 1.1, 1.1, 1.3] },
  };
  summarizeVariants(variants);
  const suites: SuiteResult[] = [{ name: 'polybench', geomean: {}, programs: [{ name: 'adi', variants }] }];
  // polly and tscc against clang, tscc against Polly.
  expect(judgeRun(suites)).toMatchObject({ comparisons: 3, roundsNeeded: 6 });
  expect(variants.tscc.againstPolly).toMatchObject({ roundsBelow: 6, roundsAbove: 0, verdict: 'slower' });
  expect(variants.tscc.verdict).toBe('faster');
  expect(slowerThanPollyLine(suites[0])).toBe('slower than Polly beyond noise (same sign test): tscc adi 0.91x [0.769-0.952] p=0.016');
  const benchRun: BenchRun = {
    date: '2026-11-27T00:00:00Z', dataset: 'LARGE', repeat: 12, minRepeat: 3, statistics: signTestRule(3), tolerances: {}, notes: [], suites,
    variants: [{ name: 'clang', command: 'clang-14 -O3' }, { name: 'polly', command: 'clang-14 -O3 -mllvm -polly' }, { name: 'tscc', command: 'tscc -O3' }],
  };
  const table = toTable(benchRun);
  expect(table).toContain('(median of 3-12 rounds)');
  expect(table).toMatch(/^adi\s+2\.00s\s+2\.00x\s+1\.82x\s+0\.91x </m);
  expect(table).toContain('slower than Polly beyond noise (same sign test): tscc adi 0.91x');
  expect(toCsv(benchRun).split('\n')[0]).toMatch(/,vs_polly_round_min,vs_polly_round_max,vs_polly_verdict,vs_polly_p_slower$/);
});

// The bench's noise band (bench/noise.ts) on synthetic times: per-round speedups against the
// baseline, their min-max spread, and "slower/faster than clang -O3" only when every round agrees.
import { formatBand, noiseBand } from '../../bench/noise';
import type { BenchRun } from '../../bench/report';
import { slowerLine, toCsv, toTable } from '../../bench/report';
import type { VariantResult } from '../../bench/harness';

const clang = [1.0, 1.2, 0.9, 1.1, 1.0];

test('a variant slower in every round is slower beyond noise, even when its median speedup is near 1', () => {
  const band = noiseBand(clang, [1.02, 1.25, 0.93, 1.12, 1.05])!;
  expect(band.roundSpeedups.map((x) => +x.toFixed(4))).toEqual([0.9804, 0.96, 0.9677, 0.9821, 0.9524]);
  expect(band.spread.map((x) => +x.toFixed(4))).toEqual([0.9524, 0.9821]);
  expect(band.verdict).toBe('slower');
});

test('one round on the other side of 1 puts the difference within noise', () => {
  // Four rounds 10% slower, one round (a burst of load on clang's run) faster: not beyond noise.
  const band = noiseBand(clang, [1.1, 1.32, 0.8, 1.21, 1.1])!;
  expect(band.spread[0]).toBeLessThan(1);
  expect(band.spread[1]).toBeGreaterThan(1);
  expect(band.verdict).toBe('within-noise');
});

test('a variant faster in every round is faster', () => {
  expect(noiseBand(clang, clang.map((t) => t / 2))!.verdict).toBe('faster');
});

test('rounds pair by index; missing or zero times are left out, and fewer than 3 rounds decide nothing', () => {
  expect(noiseBand([1, 1, 1], [2, 0, 2])).toEqual({ roundSpeedups: [0.5, 0.5], spread: [0.5, 0.5], verdict: 'too-few-rounds' });
  expect(noiseBand([1, 1, 1, 1], [2, 2, 2])!.verdict).toBe('slower');
  expect(noiseBand([], [1, 2])).toBeUndefined();
});

test('formatBand prints the median speedup and the band', () => {
  expect(formatBand(0.9712, { spread: [0.93, 1.021] })).toBe('0.97x [0.930-1.021]');
  // A band just below 1 must not print as reaching it.
  expect(formatBand(0.94, { spread: [0.89, 0.998] })).toBe('0.94x [0.890-0.998]');
  expect(formatBand(1.5, {})).toBe('1.50x');
});

function run(repeat: number, tscc: Partial<VariantResult>): BenchRun {
  const ok = (r: Partial<VariantResult>): VariantResult => ({ status: 'ok', times: [], ...r });
  return {
    date: '2026-11-22T00:00:00Z', dataset: 'LARGE', repeat, tolerances: {}, notes: [],
    variants: [{ name: 'clang', command: 'clang-14 -O3' }, { name: 'tscc', command: 'tscc -O3' }],
    suites: [{
      name: 'kernels',
      geomean: { clang: 1, tscc: 1 },
      programs: [
        { name: 'trmm', variants: { clang: ok({ median: 2 }), tscc: ok({ median: 2.06, speedup: 0.9709, spread: [0.95, 0.98], verdict: 'slower', ...tscc }) } },
        { name: 'mvt', variants: { clang: ok({ median: 1 }), tscc: ok({ median: 1.01, speedup: 0.99, spread: [0.9, 1.1], verdict: 'within-noise' }) } },
      ],
    }],
  };
}

test('the table marks and lists only the variants slower beyond noise; the CSV carries band and verdict', () => {
  const r = run(5, {});
  const table = toTable(r);
  expect(table).toMatch(/^trmm\s+2\.00s\s+2\.06s 0\.97x \[0\.950-0\.980\] <\s+-/m);
  expect(table).toMatch(/^mvt\s+1\.00s\s+1\.01s 0\.99x \[0\.900-1\.100\]\s+-/m);
  expect(table).toContain('slower than clang -O3 beyond noise: tscc trmm 0.97x [0.950-0.980]\n');
  const csv = toCsv(r).split('\n');
  expect(csv[0]).toMatch(/,speedup_round_min,speedup_round_max,verdict$/);
  expect(csv).toContain('kernels,trmm,tscc,ok,2.06000,0.9709,,0,,,,0.9500,0.9800,slower');
  expect(csv).toContain('kernels,mvt,tscc,ok,1.01000,0.9900,,0,,,,0.9000,1.1000,within-noise');
});

test('without a slower verdict the line says none, and says when the run had too few rounds to tell', () => {
  expect(slowerLine(run(5, { verdict: 'within-noise' }), run(5, { verdict: 'within-noise' }).suites[0])).toBe('slower than clang -O3 beyond noise: none');
  const one = run(1, { verdict: 'too-few-rounds' });
  expect(slowerLine(one, one.suites[0])).toBe('slower than clang -O3 beyond noise: none (1 round: at least 3 are needed to tell)');
});

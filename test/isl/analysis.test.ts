// Known isl results: the lexmin of a parametric set, the gist of a run-time
// condition against an iteration domain, and dataflow with must and may writes.
import { AstBuild, Ctx, UnionAccessInfo } from 'isl-wasm';

describe('isl-wasm analyses', () => {
  let ctx: Ctx;
  beforeAll(() => {
    ctx = new Ctx();
  });
  afterAll(() => ctx.dispose());

  test('lexmin and lexmax of a parametric set split on the parameters', () => {
    ctx.scope(() => {
      // [n, m] -> { [i, j] }
      const set = ctx.set('[n, m] -> { [i, j] : 0 <= i <= n and i <= j <= m and i + j >= 5 }');
      const lexmin = set.lexmin();
      // Printed before any other use: isl simplifies its objects in place when comparing them.
      expect(lexmin.toStr()).toBe(
        '[n, m] -> { [i = 0, j = 5] : n >= 0 and m >= 5 and m >= 5 - n; [i = 5 - m, j = m] : n >= 0 and m >= 3 and 5 - n <= m <= 4 }');
      expect(lexmin.isEqual(ctx.set(
        '[n, m] -> { [0, 5] : n >= 0 and m >= 5; [5 - m, m] : 3 <= m <= 4 and m + n >= 5 }'))).toBe(true);
      expect(set.lexmax().isEqual(ctx.set(
        '[n, m] -> { [n, m] : n >= 0 and m >= n and m >= 3 and m + n >= 5; [m, m] : 3 <= m < n }'))).toBe(true);
      // [n, m] -> { [(min i)] } and [n, m] -> { [(max j)] }
      expect(set.dimMin(0).isEqual(ctx.pwAff('[n, m] -> { [(0)] : n >= 0 and m >= 5; [(5 - m)] : 3 <= m <= 4 and m + n >= 5 }'))).toBe(true);
      expect(set.dimMax(1).toStr()).toBe('[n, m] -> { [(m)] : n >= 0 and m >= 3 and m >= 5 - n }');
      expect(ctx.set('[n] -> { [i] : 0 <= i < n and i > n }').isEmpty()).toBe(true);
    });
  });

  test('the gist of a run-time check against the iteration domain drops what the domain implies', () => {
    ctx.scope(() => {
      // The check [n, m] -> { : m >= n and n <= 100 and m >= 0 } guards a loop over [n] -> { S[i] : 0 <= i < n }:
      // the loop only runs when n >= 1, which already implies m >= 0 given m >= n.
      const check = ctx.set('[n, m] -> { : m >= n and n <= 100 and m >= 0 }');
      const runs = ctx.set('[n, m] -> { S[i] : 0 <= i < n }').params();
      const simplified = check.gist(runs);
      expect(simplified.toStr()).toBe('[n, m] -> {  : n <= 100 and m >= n }');
      expect(simplified.intersect(runs).isEqual(check.intersect(runs))).toBe(true);
      const build = AstBuild.fromContext(ctx.set('[n, m] -> { : }'));
      expect(build.exprFromSet(simplified).toCStr()).toBe('n <= 100 && m >= n');
    });
  });

  // S0:  A = …;
  //      for (i = 0; i < n; i++)
  // S1:    if (…) A = …;        (a may-write)
  // K:   kill A                 (second run only)
  // S2:  … = A;
  test('dataflow with must and may writes, and kills', () => {
    ctx.scope(() => {
      const flow = UnionAccessInfo.fromSink(ctx.unionMap('{ S2[] -> A[] }'))
        .setMustSource(ctx.unionMap('{ S0[] -> A[] }'))
        .setMaySource(ctx.unionMap('[n] -> { S1[i] -> A[] : 0 <= i < n }'))
        .setScheduleMap(ctx.unionMap('{ S0[] -> [0, 0]; S1[i] -> [1, i]; S2[] -> [3, 0] }'))
        .computeFlow();
      // S0 is certainly the last writer only when the loop does not run.
      expect(flow.getMustDependence().isEqual(ctx.unionMap('[n] -> { S0[] -> S2[] : n <= 0 }'))).toBe(true);
      expect(flow.getMayDependence().isEqual(ctx.unionMap('[n] -> { S0[] -> S2[]; S1[i] -> S2[] : 0 <= i < n }'))).toBe(true);
      expect(flow.getMustNoSource().isEmpty()).toBe(true);
      expect(flow.getFullMayDependence().toStr()).toContain('S1[i] -> [S2[] -> A[]]');

      // A kill after the loop: S2 reads a killed value, no dependence is left.
      const killed = UnionAccessInfo.fromSink(ctx.unionMap('{ S2[] -> A[] }'))
        .setMustSource(ctx.unionMap('{ S0[] -> A[] }'))
        .setMaySource(ctx.unionMap('[n] -> { S1[i] -> A[] : 0 <= i < n }'))
        .setKill(ctx.unionMap('{ K[] -> A[] }'))
        .setScheduleMap(ctx.unionMap('{ S0[] -> [0, 0]; S1[i] -> [1, i]; K[] -> [2, 0]; S2[] -> [3, 0] }'))
        .computeFlow();
      expect(killed.getMayDependence().isEmpty()).toBe(true);
      expect(killed.getMayNoSource().isEmpty()).toBe(true);

      // Without a must-write, the read may see the value from before the program.
      const noMust = UnionAccessInfo.fromSink(ctx.unionMap('{ S2[] -> A[] }'))
        .setMaySource(ctx.unionMap('[n] -> { S1[i] -> A[] : 0 <= i < n }'))
        .setScheduleMap(ctx.unionMap('{ S1[i] -> [1, i]; S2[] -> [3, 0] }'))
        .computeFlow();
      expect(noMust.getMayNoSource().isEqual(ctx.unionMap('{ S2[] -> A[] }'))).toBe(true);
      expect(noMust.getMustNoSource().isEqual(ctx.unionMap('[n] -> { S2[] -> A[] : n <= 0 }'))).toBe(true);
    });
  });
});

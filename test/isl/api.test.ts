// The everyday operations, each checked against isl's own printing.
import {
  Aff, Ctx, DimType, MultiAff, PwMultiAff, Space, UnionPwMultiAff, basicSetConstraints, mapDimNames, setConstraints, setDimNames, valToBigInt,
} from 'isl-wasm';

describe('isl-wasm operations', () => {
  let ctx: Ctx;
  beforeAll(() => {
    ctx = new Ctx();
  });
  afterAll(() => ctx.dispose());
  const inScope = (fn: () => void) => () => ctx.scope(fn);

  test('set algebra', inScope(() => {
    const a = ctx.set('[n] -> { [i] : 0 <= i < n }');
    const b = ctx.set('[n] -> { [i] : 5 <= i < 20 }');
    expect(a.intersect(b).toStr()).toBe('[n] -> { [i] : 5 <= i <= 19 and i < n }');
    expect(a.union(b).coalesce().toStr()).toBe('[n] -> { [i] : i >= 0 and (i < n or (5 <= i <= 19)) }');
    expect(a.subtract(b).toStr()).toBe('[n] -> { [i] : 0 <= i < n and (i <= 4 or i >= 20) }');
    expect(a.params().toStr()).toBe('[n] -> {  : n > 0 }');
    expect(a.intersect(b).isSubset(a)).toBe(true);
    expect(a.isSubset(b)).toBe(false);
    expect(a.isEqual(ctx.set('[n] -> { [i] : i >= 0 and n - i > 0 }'))).toBe(true);
    expect(ctx.set('{ [i, j] : 0 <= i < 10 and j = i }').projectOut(DimType.set, 1, 1).toStr()).toBe('{ [i] : 0 <= i <= 9 }');
    expect(ctx.set('{ [i, j] : i <= j and j <= i and 0 <= i < 4 }').detectEqualities().toStr()).toBe('{ [i, j = i] : 0 <= i <= 3 }');
    expect(ctx.set('{ [i] : 0 <= i and 1 <= i and i < 10 }').removeRedundancies().toStr()).toBe('{ [i] : 0 < i <= 9 }');
  }));

  test('maps: apply, reverse, domain, range and union maps', inScope(() => {
    const shift = ctx.map('{ A[i] -> B[i + 1] }');
    const range = ctx.set('{ A[i] : 0 <= i < 4 }').apply(shift);
    expect(range.toStr()).toBe('{ B[i0] : 0 < i0 <= 4 }');
    expect(shift.reverse().toStr()).toBe('{ B[i0] -> A[i = -1 + i0] }');
    const restricted = shift.intersectDomain(ctx.set('{ A[i] : 0 <= i < 4 }'));
    expect(restricted.domain().toStr()).toBe('{ A[i] : 0 <= i <= 3 }');
    expect(restricted.range().toStr()).toBe('{ B[i0] : 0 < i0 <= 4 }');
    expect(restricted.lexmax().toStr()).toBe('{ A[i] -> B[1 + i] : 0 <= i <= 3 }');
    const u = ctx.unionMap('{ S[i] -> A[i]; T[i] -> A[i - 1] }');
    expect(u.applyRange(ctx.unionMap('{ A[x] -> M[2x] }')).toStr()).toBe('{ T[i] -> M[-2 + 2i]; S[i] -> M[2i] }');
    expect(u.domain().toStr()).toBe('{ T[i]; S[i] }');
    expect(u.getMapList().toArray().map((m) => mapDimNames(m).in)).toEqual([['i'], ['i']]);
    expect(ctx.unionSet('{ S[i] : 0 <= i < 3; T[] }').isEmpty()).toBe(false);
  }));

  test('reading a set back: dims and constraints with coefficients', inScope(() => {
    const set = ctx.set('[n] -> { S[i, j] : 0 <= i < n and j = 2i }');
    expect(setDimNames(set)).toEqual({ params: ['n'], in: ['i', 'j'], out: [] });
    expect(set.getTupleName()).toBe('S');
    const [disjunct] = setConstraints(set);
    // j = 2i, i >= 0, n - i - 1 >= 0
    expect(disjunct.map((c) => ({ eq: c.equality, k: c.constant, p: c.params, d: c.in }))).toEqual([
      { eq: true, k: 0n, p: [0n], d: [-2n, 1n] },
      { eq: false, k: 0n, p: [0n], d: [1n, 0n] },
      { eq: false, k: -1n, p: [1n], d: [-1n, 0n] },
    ]);
    expect(valToBigInt(ctx.val('123456789012345678901234567890'))).toBe(123456789012345678901234567890n);
    expect(() => valToBigInt(ctx.val('1/2'))).toThrow(/not an integer/);
    expect(basicSetConstraints(ctx.basicSet('{ [i] : exists (e : i = 2e) }'))[0].divs).toEqual([2n]);
  }));

  test('spaces, ids and affine expressions', inScope(() => {
    const space = ctx.set('[n] -> { S[i, j] }').getSpace();
    expect(space.toStr()).toBe('[n] -> { S[i, j] }');
    expect(space.dim(DimType.set)).toBe(2);
    expect(ctx.id('S1').getName()).toBe('S1');
    const aff = ctx.aff('[n] -> { S[i, j] -> [(2i + j + n)] }');
    expect(aff.getCoefficientVal(DimType.in, 0).toStr()).toBe('2');
    expect(aff.add(ctx.aff('[n] -> { S[i, j] -> [(1)] }')).toStr()).toBe('[n] -> { S[i, j] -> [(1 + n + 2i + j)] }');
    expect(ctx.pwAff('[n] -> { [i] -> [(i)] : i >= 0; [i] -> [(-i)] : i < 0 }').toStr()).toBe('[n] -> { [i] -> [(i)] : i >= 0; [i] -> [(-i)] : i < 0 }');
    const ma = ctx.multiAff('{ S[i, j] -> A[j, i] }');
    expect(PwMultiAff.fromMultiAff(ma).toStr()).toBe('{ S[i, j] -> A[(j), (i)] }');
    expect(ctx.unionPwMultiAff('{ S[i] -> A[i]; T[i] -> A[i + 1] }').toStr()).toBe('{ S[i] -> A[(i)]; T[i] -> A[(1 + i)] }');
    expect(ctx.unionPwAff('{ S[i] -> [(i)] }').toStr()).toBe('{ S[i] -> [(i)] }');
    expect(ctx.multiUnionPwAff('[{ S[i] -> [(i)] }]').toStr()).toBe('[{ S[i] -> [(i)] }]');
    expect(Aff.zeroOnDomainSpace(Space.readFromStr(ctx, '{ S[i] }')).toStr()).toBe('{ S[i] -> [(0)] }');
    expect(MultiAff.identityOnDomainSpace(Space.readFromStr(ctx, '{ S[i] }')).toStr()).toBe('{ S[i] -> S[(i)] }');
    expect(UnionPwMultiAff.readFromStr(ctx, '{ S[i] -> [i] }').domain().toStr()).toBe('{ S[i] }');
  }));

  test('schedule trees: partial schedules, marks and the schedule map', inScope(() => {
    const schedule = ctx.schedule('{ domain: "[n] -> { S[i, j] : 0 <= i, j < n }", child: { schedule: "[n] -> [{ S[i, j] -> [(i)] }, { S[i, j] -> [(j)] }]", permutable: 1, coincident: [ 1, 0 ] } }');
    const band = schedule.getRoot().child(0);
    expect(band.bandGetPermutable()).toBe(true);
    expect([band.bandMemberGetCoincident(0), band.bandMemberGetCoincident(1)]).toEqual([true, false]);
    expect(band.bandGetPartialScheduleUnionMap().toStr()).toBe('[n] -> { S[i, j] -> [i, j] }');
    const marked = band.insertMark(ctx.id('kernel'));
    expect(marked.getSchedule().toStr()).toContain('mark: "kernel"');
    expect(marked.child(0).bandSplit(1).child(0).bandGetPartialSchedule().toStr()).toBe('[n] -> [{ S[i, j] -> [(j)] }]');
  }));
});

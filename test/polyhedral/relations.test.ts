// polyhedral/relations.ts builds through isl's API the relations the transforms and DeLICM once
// read from isl text: each builder must give the set or map that text meant (isl decides equality).
import { Ctx, MultiAff, Set as IslSet } from 'isl-wasm';
import {
  emptyUnionMapIn, emptyUnionSetIn, equalUpTo, identityBetween, lexLessMap, pointMapSpace, pointSpace, pointsAtParams,
  relationOf, relationPerShape, samePrefixOtherLastMap, tupleMapSpace, tupleSetSpace, tupleUniverse,
} from '../../polyhedral/relations';

const names = (prefix: string, n: number): string => Array.from({ length: n }, (_, k) => `${prefix}${k}`).join(', ');

describe('relations through isl\'s API', () => {
  let ctx: Ctx;
  beforeEach(() => {
    ctx = new Ctx();
  });
  afterEach(() => ctx.dispose());

  test('lexicographic order and same prefix, other last, for every shape up to 4 x 4', () => {
    for (let n = 0; n <= 4; n++) {
      for (let m = 0; m <= 4; m++) {
        const k = Math.min(n, m);
        const ors = Array.from({ length: k }, (_, d) => [...Array.from({ length: d }, (_, j) => `a${j} = b${j}`), `a${d} < b${d}`].join(' and '));
        const lex = ctx.map(`{ [${names('a', n)}] -> [${names('b', m)}] : ${ors.length === 0 ? 'false' : ors.map((x) => `(${x})`).join(' or ')} }`);
        expect(lexLessMap(pointMapSpace(ctx, n, m)).isEqual(lex)).toBe(true);
        const eq = Array.from({ length: Math.max(n - 1, 0) }, (_, j) => `a${j} = b${j}`);
        const other = n === m && n > 0 ? [...eq, `(a${n - 1} < b${n - 1} or a${n - 1} > b${n - 1})`].join(' and ') : 'false';
        expect(samePrefixOtherLastMap(pointMapSpace(ctx, n, m)).isEqual(ctx.map(`{ [${names('a', n)}] -> [${names('b', m)}] : ${other} }`))).toBe(true);
      }
    }
    // DeLICM's before-instance order: the first two of three time dimensions
    expect(lexLessMap(pointMapSpace(ctx, 3, 3), 2).isEqual(ctx.map('{ [a0, a1, a2] -> [b0, b1, b2] : (a0 < b0) or (a0 = b0 and a1 < b1) }'))).toBe(true);
  });

  test('per shape of a union map, tuples between named spaces, identities', () => {
    const pairs = ctx.unionMap('[n] -> { S[i, j] -> T[k] : i < n; [i] -> [k, l]; [x, y] -> [z] }');
    expect(relationPerShape(ctx, pairs, (space) => lexLessMap(space)).isEqual(ctx.unionMap('{ [i0, i1] -> [o0] : o0 > i0; [i0] -> [o0, o1] : o0 > i0 }'))).toBe(true);
    const later = relationOf(tupleMapSpace(ctx, { name: 'S', dims: 3 }, { name: 'S', dims: 3 }), (i, o, w) => equalUpTo(w, i, o, 1).intersect(i[1]!.ltSet(o[1]!)));
    expect(later.isEqual(ctx.map('{ S[i0, i1, i2] -> S[o0, o1, o2] : o0 = i0 and o1 > i1 }'))).toBe(true);
    expect(identityBetween(ctx, { name: 'T', dims: 2 }, 'V_S').isEqual(ctx.map('{ T[i0, i1] -> V_S[i0, i1] }'))).toBe(true);
    expect(tupleUniverse(ctx, 'Undef').toUnionSet().isEqual(ctx.unionSet('{ Undef[] }'))).toBe(true);
    const end = MultiAff.multiValOnDomainSpace(tupleUniverse(ctx, 'End', 2).getSpace(), ctx.multiVal(pointSpace(ctx, 3), [1_000_000, 0, 0])).asMap();
    expect(end.isEqual(ctx.map('{ End[o0, o1] -> [1000000, 0, 0] }'))).toBe(true);
  });

  test('points at parameters keep the parameters in the order given', () => {
    const packed = pointsAtParams(ctx, { name: 'S', dims: 3 }, ['c0', 'c1'], [[2, 0], [0, 1]]);
    expect(packed.isEqual(ctx.map('[c0, c1] -> { [] -> S[x0, x1, x2] : x2 = c0 and x0 = c1 }'))).toBe(true);
    expect(packed.toStr()).toMatch(/^\[c0, c1\] -> /);
    expect(pointsAtParams(ctx, { name: 'S', dims: 0 }, [], []).isEqual(ctx.map('{ [] -> S[] }'))).toBe(true);
  });

  test('empty unions keep the parameters (also under a context that says nothing)', () => {
    for (const params of ['[n, m] -> { : 0 <= n and m > 0 }', '[n, m] -> { : }']) {
      const space = ctx.set(params).getSpace();
      expect(emptyUnionMapIn(space).toStr()).toBe(ctx.unionMap('[n, m] -> { }').toStr());
      expect(emptyUnionSetIn(space).toStr()).toBe(ctx.unionSet('[n, m] -> { }').toStr());
    }
    expect(IslSet.empty(tupleSetSpace(ctx, { name: 'S', dims: 2 }, ['n', 'm'])).toStr()).toBe(ctx.set('[n, m] -> { S[i0, i1] : 1 = 0 }').toStr());
  });
});

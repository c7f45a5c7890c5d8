// Relations between unnamed points built through isl's API (the house rule: schedules and the
// maps that build or check them are isl objects, never text to parse). Every object returned
// belongs to the caller's isl scope.
import { type Aff, type Ctx, DimType, Map as IslMap, Set as IslSet, Space, UnionMap, UnionSet } from 'isl-wasm';

/** The set space [x_0, .., x_(n-1)] of unnamed points, without parameters. */
export function pointSpace(ctx: Ctx, n: number): Space {
  return Space.unit(ctx).addUnnamedTupleUi(n);
}

/** The universe of the tuple `name[..]` (`dims` dimensions, no parameters): `{ Undef[] }`, `{ MemRef_x[] }`. */
export function tupleUniverse(ctx: Ctx, name: string, dims = 0): IslSet {
  return IslSet.universe(tupleSetSpace(ctx, { name, dims }));
}

/** The map space [a_0, .., a_(n-1)] -> [b_0, .., b_(m-1)] of unnamed points, without parameters. */
export function pointMapSpace(ctx: Ctx, n: number, m: number): Space {
  return pointSpace(ctx, n).addUnnamedTupleUi(m);
}

/** A tuple of a space: its name (undefined: unnamed) and dimension count. */
export interface Tuple {
  readonly name?: string;
  readonly dims: number;
}

/** The space [params] -> { From[..] -> To[..] } (no parameters by default; their order is `params`'). */
export function tupleMapSpace(ctx: Ctx, from: Tuple, to: Tuple, params: readonly string[] = []): Space {
  return addTuple(ctx, tupleSetSpace(ctx, from, params), to);
}

/** The space [params] -> { T[..] } (no parameters by default; their order is `params`'). */
export function tupleSetSpace(ctx: Ctx, tuple: Tuple, params: readonly string[] = []): Space {
  return addTuple(ctx, params.reduce((s, p) => s.addParamId(ctx.id(p)), Space.unit(ctx)), tuple);
}

function addTuple(ctx: Ctx, s: Space, t: Tuple): Space {
  return t.name === undefined ? s.addUnnamedTupleUi(t.dims) : s.addNamedTupleIdUi(ctx.id(t.name), t.dims);
}

/**
 * { [a] -> [b] : condition(a, b) } in the map space `space`: `condition` receives the input and
 * output dimensions as affine functions on the wrapped space `pairs` and returns a subset of it.
 */
export function relationOf(space: Space, condition: (a: readonly Aff[], b: readonly Aff[], pairs: Space) => IslSet): IslMap {
  const pairs = space.wrap();
  const x = pairs.identityMultiAffOnDomain();
  const n = space.dim(DimType.in);
  const all = Array.from({ length: x.size() }, (_, k) => x.getAt(k));
  return condition(all.slice(0, n), all.slice(n), pairs).unwrap();
}

/** { [a] -> [b] : a_d = b_d for d < k } within `pairs` (its universe when k = 0). */
export function equalUpTo(pairs: Space, a: readonly Aff[], b: readonly Aff[], k: number): IslSet {
  return a.slice(0, k).reduce((s, x, d) => s.intersect(x.eqSet(b[d]!)), IslSet.universe(pairs));
}

/** { From[i..] -> To[i..] }: each point of `from` to the point of `to` (a tuple of as many dimensions) with the same coordinates. */
export function identityBetween(ctx: Ctx, from: Tuple, to: string): IslMap {
  return relationOf(tupleMapSpace(ctx, from, { name: to, dims: from.dims }), (a, b, pairs) => equalUpTo(pairs, a, b, from.dims));
}

/**
 * [params] -> { [] -> T[x..] : x_d = params[p] for each [d, p] of `equal` }: the points of `tuple`
 * whose coordinates d are the parameters p (the others free), parameters in the order of `params`.
 */
export function pointsAtParams(ctx: Ctx, tuple: Tuple, params: readonly string[], equal: readonly (readonly [number, number])[]): IslMap {
  return relationOf(tupleMapSpace(ctx, { dims: 0 }, tuple, params), (_, x, pairs) =>
    equal.reduce((s, [d, p]) => s.intersect(x[d]!.eqSet(pairs.paramAffOnDomainId(ctx.id(params[p]!)))), IslSet.universe(pairs)));
}

/**
 * { [a] -> [b] : a lexicographically before b on their first `first` dimensions }, by default
 * min(n, m), n and m the dimension counts of `space`.
 */
export function lexLessMap(space: Space, first?: number): IslMap {
  return relationOf(space, (a, b, pairs) => {
    const k = first ?? Math.min(a.length, b.length);
    // (a_0 < b_0) or (a_0 = b_0 and a_1 < b_1) or ..
    const pieces = Array.from({ length: k }, (_, d) => a.slice(0, d).reduce((s, x, j) => s.intersect(x.eqSet(b[j]!)), a[d]!.ltSet(b[d]!)));
    return pieces.reduce((s, p) => s.union(p), IslSet.empty(pairs));
  });
}

/** { [a] -> [b] : a and b equal but in their last dimension }, empty where `space`'s two tuples differ in size. */
export function samePrefixOtherLastMap(space: Space): IslMap {
  return relationOf(space, (a, b, pairs) => {
    const n = a.length;
    if (n !== b.length || n === 0) return IslSet.empty(pairs);
    return a.slice(0, n - 1).reduce((s, x, j) => s.intersect(x.eqSet(b[j]!)), a[n - 1]!.neSet(b[n - 1]!));
  });
}

/** The union over the map spaces of `pairs` (unnamed tuples, by their dimension counts) of `relation(space)`. */
export function relationPerShape(ctx: Ctx, pairs: UnionMap, relation: (space: Space) => IslMap): UnionMap {
  const shapes = new Map<string, [number, number]>();
  for (const p of pairs.getMapList().toArray()) shapes.set(`${p.dim(DimType.in)},${p.dim(DimType.out)}`, [p.dim(DimType.in), p.dim(DimType.out)]);
  return [...shapes.values()].reduce((u, [n, m]) => u.union(relation(pointMapSpace(ctx, n, m)).toUnionMap()), UnionMap.emptyCtx(ctx));
}

/** The empty union map with the parameters of `params` (a parameter space, in their order); `UnionMap.emptyCtx` has none. */
export function emptyUnionMapIn(params: Space): UnionMap {
  return UnionMap.fromMap(IslMap.empty(params.addUnnamedTupleUi(0).addUnnamedTupleUi(0)));
}

/** The empty union set with the parameters of `params` (a parameter space, in their order). */
export function emptyUnionSetIn(params: Space): UnionSet {
  return UnionSet.fromSet(IslSet.empty(params.addUnnamedTupleUi(0)));
}

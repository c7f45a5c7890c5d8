// Reading sets and maps back as plain data: their disjuncts (basic sets /
// basic maps) and each disjunct's constraints with integer coefficients.
import { DimType, type BasicMap, type BasicSet, type Constraint, type Map, type Set, type Val } from './generated/isl';

/**
 * One constraint `Σ coefficient·dim + constant (= | >=) 0` of a basic set or
 * basic map, with coefficients per kind of dimension.
 */
export interface ConstraintData {
  readonly equality: boolean;
  readonly constant: bigint;
  readonly params: readonly bigint[];
  /** Set dimensions (for a basic set) or input dimensions (for a basic map). */
  readonly in: readonly bigint[];
  /** Output dimensions; empty for a basic set. */
  readonly out: readonly bigint[];
  /** Existentially quantified (local) dimensions. */
  readonly divs: readonly bigint[];
}

/** The names of a set's or map's dimensions (null where unnamed). */
export interface DimNames {
  readonly params: readonly (string | null)[];
  readonly in: readonly (string | null)[];
  readonly out: readonly (string | null)[];
}

/** An integer isl_val as a bigint (any size); throws for rationals, NaN and infinities. */
export function valToBigInt(v: Val): bigint {
  if (!v.isInt()) throw new RangeError(`isl value ${v.toStr()} is not an integer`);
  return BigInt(v.toStr());
}

function coefficients(c: Constraint, type: DimType): bigint[] {
  const n = c.dim(type);
  const out: bigint[] = [];
  for (let i = 0; i < n; i++) out.push(valToBigInt(c.getCoefficientVal(type, i)));
  return out;
}

function readConstraint(c: Constraint, isMap: boolean): ConstraintData {
  return {
    equality: c.isEquality(),
    constant: valToBigInt(c.getConstantVal()),
    params: coefficients(c, DimType.param),
    in: coefficients(c, isMap ? DimType.in : DimType.set),
    out: isMap ? coefficients(c, DimType.out) : [],
    divs: coefficients(c, DimType.div),
  };
}

/** The constraints of one basic set. */
export function basicSetConstraints(bset: BasicSet): ConstraintData[] {
  return bset.ctx.scope(() => bset.getConstraintList().toArray().map((c) => readConstraint(c, false)));
}

/** The constraints of one basic map. */
export function basicMapConstraints(bmap: BasicMap): ConstraintData[] {
  return bmap.ctx.scope(() => bmap.getConstraintList().toArray().map((c) => readConstraint(c, true)));
}

/** A set as a union of disjuncts, each a list of constraints. */
export function setConstraints(set: Set): ConstraintData[][] {
  return set.ctx.scope(() => set.getBasicSetList().toArray().map(basicSetConstraints));
}

/** A map as a union of disjuncts, each a list of constraints. */
export function mapConstraints(map: Map): ConstraintData[][] {
  return map.ctx.scope(() => map.getBasicMapList().toArray().map(basicMapConstraints));
}

export function setDimNames(set: Set): DimNames {
  const names = (type: DimType) => Array.from({ length: set.dim(type) }, (_, i) => set.getDimName(type, i));
  return { params: names(DimType.param), in: names(DimType.set), out: [] };
}

export function mapDimNames(map: Map): DimNames {
  const names = (type: DimType) => Array.from({ length: map.dim(type) }, (_, i) => map.getDimName(type, i));
  return { params: names(DimType.param), in: names(DimType.in), out: names(DimType.out) };
}

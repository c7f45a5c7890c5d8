// Small questions about values: is it a constant, which integer, are two constants equal.
import { typesEqual } from './type';
import type { Constant, GlobalValue, Value } from './types';

const constantKinds = new Set<string>([
  'const-int', 'const-fp', 'const-null', 'undef', 'poison', 'zeroinitializer', 'token-none',
  'const-aggregate', 'const-string', 'const-expr', 'blockaddress', 'dso-local-equivalent',
]);

/** Constants proper (global values, whose address is constant, are not included). */
export function isConstant(v: Value): v is Constant {
  return constantKinds.has(v.kind);
}

export function isGlobalValue(v: Value): v is GlobalValue {
  return v.kind === 'function' || v.kind === 'global' || v.kind === 'alias';
}

/** The value of an integer constant (signed, as printed), or undefined for anything else. */
export function constantIntValue(v: Value): bigint | undefined {
  return v.kind === 'const-int' ? v.value : undefined;
}

/** Structural equality of constants; other values are equal only to themselves. */
export function constantsEqual(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind || !isConstant(a) || !typesEqual(a.type, b.type)) return false;
  switch (a.kind) {
    case 'const-int':
      return a.value === (b as typeof a).value;
    case 'const-fp':
      return a.text === (b as typeof a).text;
    case 'const-string':
      return a.text === (b as typeof a).text;
    case 'const-null':
    case 'undef':
    case 'poison':
    case 'zeroinitializer':
    case 'token-none':
      return true;
    case 'const-expr': {
      const e = b as typeof a;
      if (a.opcode !== e.opcode || a.flags !== e.flags || a.predicate !== e.predicate) return false;
      if (a.inRangeIndex !== e.inRangeIndex || String(a.indices) !== String(e.indices)) return false;
      if ((a.sourceElementType === undefined) !== (e.sourceElementType === undefined)) return false;
      if (a.sourceElementType && !typesEqual(a.sourceElementType, e.sourceElementType!)) return false;
      return operandsEqual(a.operands, e.operands);
    }
    case 'const-aggregate':
    case 'blockaddress':
    case 'dso-local-equivalent':
      return operandsEqual(a.operands, (b as typeof a).operands);
  }
}

function operandsEqual(a: readonly Value[], b: readonly Value[]): boolean {
  return a.length === b.length && a.every((x, i) => constantsEqual(x, b[i]!));
}

const linkages = [
  'private', 'internal', 'available_externally', 'linkonce_odr', 'weak_odr', 'linkonce', 'weak', 'common',
  'appending', 'extern_weak', 'external',
] as const;
export type Linkage = (typeof linkages)[number];

/** The linkage of a global value, read from its verbatim prefix (`external` when none is written). */
export function linkageOf(g: GlobalValue): Linkage {
  const words = g.prefix.split(/\s+/);
  for (const l of linkages) if (words.includes(l)) return l;
  return 'external';
}

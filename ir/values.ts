// Small questions about values: is it a constant, which integer, are two constants equal.
import { typesEqual } from './type-ops';
import type { Constant, GlobalValue, Instruction, Opcode, Value } from './types';

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

/** Whether `v` is an instruction with one of the given opcodes. */
export function isInstruction(v: Value | undefined, ...opcodes: Opcode[]): v is Instruction {
  return v !== undefined && v.kind === 'instruction' && (opcodes.length === 0 || opcodes.includes(v.opcode));
}

/**
 * The numeric value of a float/double constant (decimal `1.500000e+00` or LLVM's hexadecimal
 * double form `0x3FF8000000000000`, which LLVM also uses for float); undefined for other
 * values and for half/bfloat/x86_fp80/fp128 literals.
 */
export function constantFPValue(v: Value): number | undefined {
  if (v.kind !== 'const-fp') return undefined;
  const t = v.text;
  if (t.startsWith('0x')) {
    const hex = t.slice(2);
    if (!/^[0-9A-Fa-f]{16}$/.test(hex)) return undefined;
    const buf = Buffer.from(hex, 'hex');
    return buf.readDoubleBE(0);
  }
  const n = Number(t);
  return Number.isNaN(n) ? undefined : n;
}

// Type constructors, equality and printing. Primitive types are shared immutable objects.
import type {
  ArrayType,
  FloatKind,
  FloatType,
  FunctionType,
  IntegerType,
  LabelType,
  MetadataType,
  OtherPrimitiveType,
  PointerType,
  StructType,
  TokenType,
  Type,
  VectorType,
  VoidType,
} from './types';

export const voidType: VoidType = { kind: 'void' };
export const labelType: LabelType = { kind: 'label' };
export const metadataType: MetadataType = { kind: 'metadata' };
export const tokenType: TokenType = { kind: 'token' };
export const x86MmxType: OtherPrimitiveType = { kind: 'primitive', name: 'x86_mmx' };
export const x86AmxType: OtherPrimitiveType = { kind: 'primitive', name: 'x86_amx' };

const intTypes = new Map<number, IntegerType>();
/** `iN`, shared per width. */
export function intType(bits: number): IntegerType {
  let t = intTypes.get(bits);
  if (!t) {
    t = { kind: 'int', bits };
    intTypes.set(bits, t);
  }
  return t;
}
export const i1 = intType(1);
export const i8 = intType(8);
export const i16 = intType(16);
export const i32 = intType(32);
export const i64 = intType(64);

const floatTypes = new Map<FloatKind, FloatType>();
export function floatType(name: FloatKind): FloatType {
  let t = floatTypes.get(name);
  if (!t) {
    t = { kind: 'float', name };
    floatTypes.set(name, t);
  }
  return t;
}
export const floatTy = floatType('float');
export const doubleTy = floatType('double');

// Derived types are shared per element object (a cache, not semantics): always compare with
// `typesEqual`, since structurally equal types built from different element objects differ.
const pointerCache = new WeakMap<Type, PointerType>();
const arrayCache = new WeakMap<Type, Map<number, ArrayType>>();
const vectorCache = new WeakMap<Type, Map<number, VectorType>>();

/** A typed pointer `T*` (or `T addrspace(N)*`). */
export function pointerTo(pointee: Type, addrSpace = 0): PointerType {
  if (addrSpace !== 0) return { kind: 'ptr', pointee, addrSpace };
  let t = pointerCache.get(pointee);
  if (!t) {
    t = { kind: 'ptr', pointee, addrSpace };
    pointerCache.set(pointee, t);
  }
  return t;
}
export function arrayOf(element: Type, length: number): ArrayType {
  let byLength = arrayCache.get(element);
  if (!byLength) arrayCache.set(element, (byLength = new Map()));
  let t = byLength.get(length);
  if (!t) byLength.set(length, (t = { kind: 'array', element, length }));
  return t;
}
export function vectorOf(element: Type, length: number, scalable = false): VectorType {
  if (scalable) return { kind: 'vector', element, length, scalable };
  let byLength = vectorCache.get(element);
  if (!byLength) vectorCache.set(element, (byLength = new Map()));
  let t = byLength.get(length);
  if (!t) byLength.set(length, (t = { kind: 'vector', element, length, scalable }));
  return t;
}
export function functionType(returnType: Type, params: readonly Type[], varArg = false): FunctionType {
  return { kind: 'function', returnType, params, varArg };
}
export function literalStruct(elements: Type[], packed = false): StructType {
  return { kind: 'struct', name: undefined, elements, packed };
}

/** Structural equality; named structs are equal only to themselves (by name). */
export function typesEqual(a: Type, b: Type): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'int':
      return a.bits === (b as IntegerType).bits;
    case 'float':
      return a.name === (b as FloatType).name;
    case 'primitive':
      return a.name === (b as OtherPrimitiveType).name;
    case 'ptr': {
      const p = b as PointerType;
      if (a.addrSpace !== p.addrSpace) return false;
      if (a.pointee === undefined || p.pointee === undefined) return a.pointee === p.pointee;
      return typesEqual(a.pointee, p.pointee);
    }
    case 'array':
    case 'vector': {
      const o = b as ArrayType | VectorType;
      if (a.length !== o.length || !typesEqual(a.element, o.element)) return false;
      return a.kind === 'array' || a.scalable === (o as VectorType).scalable;
    }
    case 'struct': {
      const s = b as StructType;
      if (a.name !== undefined || s.name !== undefined) return a.name === s.name;
      if (a.packed !== s.packed || !a.elements || !s.elements) return false;
      if (a.elements.length !== s.elements.length) return false;
      return a.elements.every((e, i) => typesEqual(e, s.elements![i]!));
    }
    case 'function': {
      const f = b as FunctionType;
      if (a.varArg !== f.varArg || a.params.length !== f.params.length) return false;
      if (!typesEqual(a.returnType, f.returnType)) return false;
      return a.params.every((p, i) => typesEqual(p, f.params[i]!));
    }
    default:
      return true; // void, label, metadata, token
  }
}

const plainName = /^[-a-zA-Z$._][-a-zA-Z$._0-9]*$/;

/** `%name`, `@name` or `%"quoted name"` as LLVM prints identifiers. */
export function printIdentifier(sigil: '%' | '@', name: string): string {
  if (plainName.test(name) || /^[0-9]+$/.test(name)) return sigil + name;
  return sigil + '"' + escapeString(name) + '"';
}

/** LLVM's escaping inside quotes: printable ASCII except `"` and `\` as is, the rest as `\XX`. */
export function escapeString(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c) out += s[i];
    else out += '\\' + c.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** The type as LLVM prints it (`i32`, `double*`, `[4 x i8]`, `%struct.S`, `i32 (i8*, ...)*`). */
export function printType(t: Type): string {
  switch (t.kind) {
    case 'void':
    case 'label':
    case 'metadata':
    case 'token':
      return t.kind;
    case 'primitive':
    case 'float':
      return t.name;
    case 'int':
      return 'i' + t.bits;
    case 'ptr':
      if (t.pointee === undefined) return t.addrSpace ? `ptr addrspace(${t.addrSpace})` : 'ptr';
      return printType(t.pointee) + (t.addrSpace ? ` addrspace(${t.addrSpace})*` : '*');
    case 'array':
      return `[${t.length} x ${printType(t.element)}]`;
    case 'vector':
      return `<${t.scalable ? 'vscale x ' : ''}${t.length} x ${printType(t.element)}>`;
    case 'struct':
      if (t.name !== undefined) return printIdentifier('%', t.name);
      return printStructBody(t);
    case 'function': {
      const ps = t.params.map(printType);
      if (t.varArg) ps.push('...');
      return `${printType(t.returnType)} (${ps.join(', ')})`;
    }
  }
}

/** `{ i32, i8 }`, `<{ i8 }>`, `{}` or `opaque`. */
export function printStructBody(t: StructType): string {
  if (!t.elements) return 'opaque';
  if (t.elements.length === 0) return t.packed ? '<{}>' : '{}';
  const inner = `{ ${t.elements.map(printType).join(', ')} }`;
  return t.packed ? `<${inner}>` : inner;
}

export function isIntegerType(t: Type, bits?: number): t is IntegerType {
  return t.kind === 'int' && (bits === undefined || t.bits === bits);
}
export function isPointerType(t: Type): t is PointerType {
  return t.kind === 'ptr';
}
export function isFloatType(t: Type): t is FloatType {
  return t.kind === 'float';
}
/** The element type of a vector, or the type itself. */
export function scalarType(t: Type): Type {
  return t.kind === 'vector' ? t.element : t;
}

/** The type reached by indexing `t` with one GEP index (array/vector element or struct field). */
export function indexedType(t: Type, fieldIndex: number | undefined): Type | undefined {
  if (t.kind === 'array' || t.kind === 'vector') return t.element;
  if (t.kind === 'struct') return fieldIndex === undefined ? undefined : t.elements?.[fieldIndex];
  return undefined;
}

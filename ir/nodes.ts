// Constructors for IR nodes. They set up operands through the use lists, so every node
// made here is immediately consistent. Nodes are detached until inserted (`ir/edit.ts`).
import { i1, labelType, metadataType, pointerTo, tokenType } from './type-ops';
import { appendOperand } from './uses';
import type {
  Argument,
  BasicBlock,
  BlockAddress,
  ConstantAggregate,
  ConstantExpr,
  ConstantFP,
  ConstantInt,
  ConstantNull,
  ConstantPoison,
  ConstantString,
  ConstantTokenNone,
  ConstantUndef,
  ConstantZero,
  DsoLocalEquivalent,
  FloatType,
  FunctionType,
  GlobalAlias,
  GlobalVariable,
  InlineAsm,
  Instruction,
  IntegerType,
  IrFunction,
  MetadataValue,
  Module,
  Opcode,
  PointerType,
  Type,
  User,
  Value,
} from './types';

function withOperands<T extends User>(node: T, operands: readonly Value[]): T {
  for (const v of operands) appendOperand(node, v);
  return node;
}

/** Extra fields of an instruction beyond opcode, type and operands. */
export type InstructionFields = Partial<
  Omit<Instruction, 'kind' | 'opcode' | 'type' | 'operands' | 'operandUses' | 'uses' | 'parent'>
>;

/** A detached instruction (no parent block). */
export function createInstruction(
  opcode: Opcode,
  type: Type,
  operands: readonly Value[],
  fields: InstructionFields = {},
): Instruction {
  // Every instruction gets all fields, in one order, so V8 keeps a single object shape.
  const inst: Instruction = {
    kind: 'instruction',
    opcode,
    type,
    name: undefined,
    parent: undefined,
    flags: 0,
    fastMath: 0,
    predicate: undefined,
    align: undefined,
    sourceElementType: undefined,
    allocatedType: undefined,
    addrSpace: undefined,
    incomingBlocks: undefined,
    indices: undefined,
    call: undefined,
    indirectCount: undefined,
    rmwOperation: undefined,
    atomic: undefined,
    clauses: undefined,
    unwindToCaller: undefined,
    metadata: [],
    operands: [],
    operandUses: [],
    uses: [],
  };
  Object.assign(inst, fields);
  return withOperands(inst, operands);
}

export function createBlock(name?: string): BasicBlock {
  return { kind: 'block', type: labelType, name, parent: undefined, instructions: [], uses: [] };
}

export function createArgument(type: Type, parent: IrFunction, index: number, name?: string, attrs = ''): Argument {
  return { kind: 'argument', type, name, parent, index, attrs, uses: [] };
}

/* ---------------------------------------------------------------- constants */

/** An integer constant; `value` is wrapped to the signed range of the type (i1: 0n or 1n). */
export function constInt(type: IntegerType, value: bigint | number): ConstantInt {
  let v = BigInt(value);
  if (type.bits === 1) v = v & 1n;
  else v = BigInt.asIntN(type.bits, v);
  return { kind: 'const-int', type, value: v, uses: [] };
}
export function constTrue(): ConstantInt {
  return constInt(i1, 1);
}
export function constFalse(): ConstantInt {
  return constInt(i1, 0);
}

/** A floating-point constant from LLVM literal text (`1.000000e+00`, `0x3FF0000000000000`). */
export function constFPText(type: FloatType, text: string): ConstantFP {
  return { kind: 'const-fp', type, text, uses: [] };
}

/** A float/double constant from a JS number, printed as LLVM's exact hexadecimal double form. */
export function constFP(type: FloatType, value: number): ConstantFP {
  if (type.name !== 'double' && type.name !== 'float') {
    throw new TypeError(`constFP: only float and double from numbers, not ${type.name}`);
  }
  const v = type.name === 'float' ? Math.fround(value) : value;
  const buf = Buffer.alloc(8);
  buf.writeDoubleBE(v);
  return constFPText(type, '0x' + buf.toString('hex').toUpperCase());
}

export function constNull(type: PointerType | Type): ConstantNull {
  return { kind: 'const-null', type, uses: [] };
}
export function undef(type: Type): ConstantUndef {
  return { kind: 'undef', type, uses: [] };
}
export function poison(type: Type): ConstantPoison {
  return { kind: 'poison', type, uses: [] };
}
export function zeroInitializer(type: Type): ConstantZero {
  return { kind: 'zeroinitializer', type, uses: [] };
}
export function tokenNone(): ConstantTokenNone {
  return { kind: 'token-none', type: tokenType, uses: [] };
}
export function constAggregate(type: Type, elements: readonly Value[]): ConstantAggregate {
  return withOperands<ConstantAggregate>({ kind: 'const-aggregate', type, operands: [], operandUses: [], uses: [] }, elements);
}
export function constString(type: Type, text: string): ConstantString {
  return { kind: 'const-string', type, text, uses: [] };
}
export function constExpr(
  opcode: Opcode,
  type: Type,
  operands: readonly Value[],
  fields: Partial<Pick<ConstantExpr, 'flags' | 'predicate' | 'sourceElementType' | 'indices' | 'inRangeIndex'>> = {},
): ConstantExpr {
  const e: ConstantExpr = { kind: 'const-expr', opcode, type, flags: 0, ...fields, operands: [], operandUses: [], uses: [] };
  return withOperands(e, operands);
}
export function blockAddress(type: Type, fn: Value, block: BasicBlock): BlockAddress {
  return withOperands<BlockAddress>({ kind: 'blockaddress', type, operands: [], operandUses: [], uses: [] }, [fn, block]);
}
export function dsoLocalEquivalent(type: Type, fn: Value): DsoLocalEquivalent {
  return withOperands<DsoLocalEquivalent>({ kind: 'dso-local-equivalent', type, operands: [], operandUses: [], uses: [] }, [fn]);
}
export function inlineAsm(type: Type, text: string): InlineAsm {
  return { kind: 'inline-asm', type, text, uses: [] };
}
/** `metadata !12`, `metadata !DIExpression()`: verbatim metadata as a call operand. */
export function metadataText(text: string): MetadataValue {
  return { kind: 'metadata', type: metadataType, text, argList: false, operands: [], operandUses: [], uses: [] };
}
/** `metadata T %v` (one value) or `metadata !DIArgList(T %a, T %b)` (`argList`). */
export function metadataWrapping(values: readonly Value[], argList: boolean): MetadataValue {
  return withOperands<MetadataValue>(
    { kind: 'metadata', type: metadataType, text: undefined, argList, operands: [], operandUses: [], uses: [] },
    values,
  );
}

/* ---------------------------------------------------------------- globals */

/** An empty module. */
export function createModule(sourceName = '<module>'): Module {
  return {
    kind: 'module',
    sourceName,
    sourceFilename: undefined,
    dataLayout: undefined,
    triple: undefined,
    moduleAsm: [],
    namedTypes: [],
    comdats: [],
    globals: [],
    aliases: [],
    functions: [],
    symbols: new Map(),
    attributeGroups: new Map(),
    namedMetadata: new Map(),
    metadata: new Map(),
  };
}

/** A detached function object with one argument per parameter type (not yet in `m.functions`). */
export function createFunction(m: Module, name: string, type: FunctionType, addrSpace = 0): IrFunction {
  const fn: IrFunction = {
    kind: 'function',
    type: pointerTo(type, addrSpace),
    name,
    functionType: type,
    prefix: '',
    returnAttrs: '',
    args: [],
    suffix: '',
    metadata: [],
    isDeclaration: true,
    blocks: [],
    hasPersonality: false,
    parent: m,
    operands: [],
    operandUses: [],
    uses: [],
  };
  fn.args = type.params.map((t, i) => createArgument(t, fn, i));
  return fn;
}

export function createGlobalVariable(m: Module, name: string, valueType: Type, addrSpace = 0): GlobalVariable {
  return {
    kind: 'global',
    type: pointerTo(valueType, addrSpace),
    name,
    valueType,
    prefix: '',
    isConstant: false,
    suffix: '',
    hasInitializer: false,
    parent: m,
    operands: [],
    operandUses: [],
    uses: [],
  };
}

export function createAlias(m: Module, name: string, valueType: Type, type: PointerType, isIFunc: boolean): GlobalAlias {
  return { kind: 'alias', type, name, valueType, isIFunc, prefix: '', suffix: '', parent: m, operands: [], operandUses: [], uses: [] };
}

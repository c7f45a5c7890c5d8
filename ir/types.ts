// The shapes of the IR model: LLVM 14 textual IR as plain data, tagged by `kind`.
//
// Conventions everyone coding against `ir/` must know:
//
// * Plain data, TypeScript-compiler style. Every node is an object literal with a `kind`
//   string tag; narrow on it (`v.kind === 'instruction'`). Nothing here has methods: the
//   operations live in functions (`ir/uses.ts`, `ir/edit.ts`, `ir/builder.ts`, ...), all
//   re-exported from `ir/index.ts`. Analyses keep side tables (`Map<BasicBlock, ...>`)
//   instead of writing onto nodes.
// * Never assign `operands[i]` directly: use `setOperand` (and the builder / edit functions),
//   which keep use lists right. Every `Value` has `uses: Use[]`; each `Use` says which user
//   holds the value at which operand index. The order of `uses` is unspecified (removal
//   swaps with the last entry, so it is O(1)). `users(v)` gives the distinct users.
// * Operand layout follows LLVM where LLVM has one, with these choices:
//     - `br`:          [dest] or [cond, trueDest, falseDest]
//     - `switch`:      [cond, defaultDest, caseValue0, caseDest0, caseValue1, caseDest1, ...]
//     - `indirectbr`:  [address, dest0, dest1, ...]
//     - `call`:        [callee, ...args, ...bundleValues]  (see `calledValue`, `callArgs`)
//     - `invoke`:      [callee, ...args, ...bundleValues, normalDest, unwindDest]
//     - `callbr`:      [callee, ...args, ...bundleValues, defaultDest, ...indirectDests] (`indirectCount`)
//     - `catchswitch`: [parentPad, ...handlers, unwindDest?]  (`unwindToCaller` when no unwindDest)
//     - `catchpad`/`cleanuppad`: [parentPad, ...args];  `catchret`: [pad, dest]
//     - `cleanupret`:  [pad, unwindDest?]  (`unwindToCaller` when none)
//     - `phi`:         incoming values; the matching blocks are `incomingBlocks[i]`
//                      (not operands, as in LLVM: blocks named by a phi are not its uses)
//     - `landingpad`:  one operand per clause, `clauses[i]` says catch or filter
//     - `store`:       [value, pointer];  `load`: [pointer];  `alloca`: [count]
//     - `getelementptr`: [pointer, ...indices], `sourceElementType` is the type indexed
//     - `extractvalue`/`insertvalue`: aggregate (and value) operands, `indices` constant
//     - `shufflevector`: [v1, v2, mask] (mask is a constant vector, as LLVM 14 prints it)
//   Basic blocks used by terminators ARE operands, so `block.uses` are the terminators (and
//   `blockaddress` constants) naming it; `predecessors` derives from that.
// * Constants are NOT uniqued: each occurrence in the text becomes its own object (with its
//   own tiny use list). Compare constants with `constantsEqual`, types with `typesEqual`.
//   A constant object may be shared by several users (cloning shares them), so never
//   mutate one in place: build a new constant and `setOperand` it.
//   Global values (functions, global variables, aliases, ifuncs) are unique per module and
//   are referenced by object identity.
// * Names: `name` is the LLVM name without its sigil and unescaped (`%"a b"` -> `a b`);
//   `undefined` (or a purely numeric name) means unnamed (the printer numbers unnamed
//   values `%0, %1, ...` in order, as LLVM requires). Duplicate local names are made unique at print time by appending a
//   number, so the builder may reuse a name freely.
// * Types: primitive types are shared objects from `ir/type-ops.ts` (`i32`, `intType(64)`,
//   `pointerTo(t)`); compare with `typesEqual`. LLVM 14 prints typed pointers (`double*`),
//   so `PointerType.pointee` is set (undefined only for opaque `ptr`). Named structs are
//   one object per module (`Module.namedTypes`), compared by identity.
// * What passes need not understand stays verbatim text and round-trips as is: attribute
//   lists and groups (`#0`), linkage/visibility words, section/comdat/align suffixes of
//   globals, module-level metadata bodies, comdats, module asm, inline asm. Metadata
//   attachments on instructions (`!dbg !12`, `!tbaa !5`, `!llvm.loop !9`) are name/ref
//   pairs; `debugLocation(inst, m)` resolves `!dbg` to file:line through `Module.metadata`.
//   Values inside function-local metadata operands (`metadata i32 %x`,
//   `!DIArgList(i32 %a)`) are real operands, so RAUW and cloning update them.

/* ---------------------------------------------------------------- types */

export type Type =
  | VoidType
  | IntegerType
  | FloatType
  | PointerType
  | ArrayType
  | VectorType
  | StructType
  | FunctionType
  | LabelType
  | MetadataType
  | TokenType
  | OtherPrimitiveType;

export interface VoidType {
  readonly kind: 'void';
}
export interface LabelType {
  readonly kind: 'label';
}
export interface MetadataType {
  readonly kind: 'metadata';
}
export interface TokenType {
  readonly kind: 'token';
}
/** `x86_mmx`, `x86_amx`: carried through, never interpreted. */
export interface OtherPrimitiveType {
  readonly kind: 'primitive';
  readonly name: 'x86_mmx' | 'x86_amx';
}
export interface IntegerType {
  readonly kind: 'int';
  readonly bits: number;
}
export type FloatKind = 'half' | 'bfloat' | 'float' | 'double' | 'x86_fp80' | 'fp128' | 'ppc_fp128';
export interface FloatType {
  readonly kind: 'float';
  readonly name: FloatKind;
}
export interface PointerType {
  readonly kind: 'ptr';
  /** The pointee of a typed pointer (`double*`); undefined for opaque `ptr`. */
  readonly pointee: Type | undefined;
  readonly addrSpace: number;
}
export interface ArrayType {
  readonly kind: 'array';
  readonly length: number;
  readonly element: Type;
}
export interface VectorType {
  readonly kind: 'vector';
  readonly length: number;
  readonly element: Type;
  /** `<vscale x 4 x i32>` */
  readonly scalable: boolean;
}
/**
 * A literal struct (`{ i32, i8* }`, `<{ i8 }>` when packed) or a named one (`%struct.S`).
 * A named struct is one mutable object per module: `elements` is undefined while it is
 * opaque (`%struct.S = type opaque`) and may be filled in later.
 */
export interface StructType {
  readonly kind: 'struct';
  /** Name without `%`, unescaped; undefined for literal structs. Numbered types keep their number as name ("0"). */
  readonly name: string | undefined;
  elements: Type[] | undefined;
  packed: boolean;
}
export interface FunctionType {
  readonly kind: 'function';
  readonly returnType: Type;
  readonly params: readonly Type[];
  readonly varArg: boolean;
}

/* ---------------------------------------------------------------- values and uses */

/** One slot of a user holding a value. `slot` is this use's index in `value.uses` (kept up to date). */
export interface Use {
  readonly user: User;
  /** Index into `user.operands`. */
  index: number;
  /** Index of this record in the used value's `uses` array (internal bookkeeping). */
  slot: number;
}

export interface ValueBase {
  type: Type;
  /** Every place this value is an operand. Maintain only through `setOperand` & co. */
  readonly uses: Use[];
}

/** Anything with operands. `operandUses[i]` is the use record of `operands[i]`. */
export interface UserBase extends ValueBase {
  readonly operands: Value[];
  readonly operandUses: Use[];
}

export type Value =
  | Instruction
  | Argument
  | BasicBlock
  | Constant
  | GlobalValue
  | InlineAsm
  | MetadataValue;

export type User =
  | Instruction
  | ConstantAggregate
  | ConstantExpr
  | BlockAddress
  | DsoLocalEquivalent
  | GlobalVariable
  | IrFunction
  | GlobalAlias
  | MetadataValue;

export type GlobalValue = IrFunction | GlobalVariable | GlobalAlias;

/* ---------------------------------------------------------------- constants */

export type Constant =
  | ConstantInt
  | ConstantFP
  | ConstantNull
  | ConstantUndef
  | ConstantPoison
  | ConstantZero
  | ConstantTokenNone
  | ConstantAggregate
  | ConstantString
  | ConstantExpr
  | BlockAddress
  | DsoLocalEquivalent;

export interface ConstantInt extends ValueBase {
  readonly kind: 'const-int';
  type: IntegerType;
  /** The value as LLVM prints it: signed decimal; i1 `true` is 1n and `false` 0n. */
  value: bigint;
}
export interface ConstantFP extends ValueBase {
  readonly kind: 'const-fp';
  type: FloatType;
  /** The literal exactly as LLVM printed it (`1.000000e+00`, `0x400921FB54442D18`, `0xK...`). */
  text: string;
}
/** `null` of a pointer type. */
export interface ConstantNull extends ValueBase {
  readonly kind: 'const-null';
}
export interface ConstantUndef extends ValueBase {
  readonly kind: 'undef';
}
export interface ConstantPoison extends ValueBase {
  readonly kind: 'poison';
}
export interface ConstantZero extends ValueBase {
  readonly kind: 'zeroinitializer';
}
/** `none` of type token. */
export interface ConstantTokenNone extends ValueBase {
  readonly kind: 'token-none';
}
/** `[...]`, `{...}`, `<{...}>`, `<...>`: the elements are the operands. */
export interface ConstantAggregate extends UserBase {
  readonly kind: 'const-aggregate';
}
/** `c"..."`: `text` is the body between the quotes, escapes kept as LLVM printed them. */
export interface ConstantString extends ValueBase {
  readonly kind: 'const-string';
  text: string;
}
/** A constant expression: `getelementptr inbounds (...)`, `bitcast (... to ...)`, `icmp eq (...)`. */
export interface ConstantExpr extends UserBase {
  readonly kind: 'const-expr';
  opcode: Opcode;
  /** InstFlag bits (nsw, nuw, exact, inbounds). */
  flags: number;
  predicate?: Predicate;
  sourceElementType?: Type;
  /** extractvalue/insertvalue indices. */
  indices?: number[];
  /** GEP: index of the operand (0 = first index) marked `inrange`. */
  inRangeIndex?: number;
}
/** `blockaddress(@f, %bb)`: operands [function, block]. */
export interface BlockAddress extends UserBase {
  readonly kind: 'blockaddress';
}
/** `dso_local_equivalent @f`: operands [function]. */
export interface DsoLocalEquivalent extends UserBase {
  readonly kind: 'dso-local-equivalent';
}
/** `asm sideeffect "..." "..."` used as a callee; kept as the verbatim text after the type. */
export interface InlineAsm extends ValueBase {
  readonly kind: 'inline-asm';
  text: string;
}

/**
 * A metadata operand of a call (`metadata i32 %x`, `metadata !12`, `metadata !DIExpression()`,
 * `metadata !DIArgList(i32 %a, i32 %b)`). When it wraps values, they are the operands and
 * `text` is undefined (`argList` tells the DIArgList form); otherwise `text` is the verbatim
 * metadata (`!12`, `!"str"`, `!DIExpression(...)`, `!{...}`).
 */
export interface MetadataValue extends UserBase {
  readonly kind: 'metadata';
  text: string | undefined;
  argList: boolean;
}

/* ---------------------------------------------------------------- instructions */

export type Opcode =
  // terminators
  | 'ret' | 'br' | 'switch' | 'indirectbr' | 'invoke' | 'resume' | 'unreachable'
  | 'cleanupret' | 'catchret' | 'catchswitch' | 'callbr'
  // unary and binary
  | 'fneg'
  | 'add' | 'fadd' | 'sub' | 'fsub' | 'mul' | 'fmul' | 'udiv' | 'sdiv' | 'fdiv' | 'urem' | 'srem' | 'frem'
  | 'shl' | 'lshr' | 'ashr' | 'and' | 'or' | 'xor'
  // vector and aggregate
  | 'extractelement' | 'insertelement' | 'shufflevector' | 'extractvalue' | 'insertvalue'
  // memory
  | 'alloca' | 'load' | 'store' | 'fence' | 'cmpxchg' | 'atomicrmw' | 'getelementptr'
  // casts
  | 'trunc' | 'zext' | 'sext' | 'fptrunc' | 'fpext' | 'fptoui' | 'fptosi' | 'uitofp' | 'sitofp'
  | 'ptrtoint' | 'inttoptr' | 'bitcast' | 'addrspacecast'
  // other
  | 'icmp' | 'fcmp' | 'phi' | 'select' | 'freeze' | 'call' | 'va_arg' | 'landingpad'
  | 'catchpad' | 'cleanuppad';

export type IcmpPredicate = 'eq' | 'ne' | 'ugt' | 'uge' | 'ult' | 'ule' | 'sgt' | 'sge' | 'slt' | 'sle';
export type FcmpPredicate =
  | 'false' | 'oeq' | 'ogt' | 'oge' | 'olt' | 'ole' | 'one' | 'ord'
  | 'ueq' | 'ugt' | 'uge' | 'ult' | 'ule' | 'une' | 'uno' | 'true';
export type Predicate = IcmpPredicate | FcmpPredicate;

/** Bits of `Instruction.flags` / `ConstantExpr.flags`. */
export enum InstFlag {
  None = 0,
  NoUnsignedWrap = 1 << 0, // nuw
  NoSignedWrap = 1 << 1, // nsw
  Exact = 1 << 2, // exact (udiv, sdiv, lshr, ashr)
  InBounds = 1 << 3, // getelementptr inbounds
  Volatile = 1 << 4, // load/store/cmpxchg/atomicrmw volatile
  Tail = 1 << 5, // tail call
  MustTail = 1 << 6, // musttail call
  NoTail = 1 << 7, // notail call
  Weak = 1 << 8, // cmpxchg weak
  Cleanup = 1 << 9, // landingpad cleanup
  InAlloca = 1 << 10, // alloca inalloca
  SwiftError = 1 << 11, // alloca swifterror
}

/** Bits of `Instruction.fastMath`. `fast` is all of them. */
export enum FastMathFlag {
  None = 0,
  Reassoc = 1 << 0,
  NoNaNs = 1 << 1, // nnan
  NoInfs = 1 << 2, // ninf
  NoSignedZeros = 1 << 3, // nsz
  AllowReciprocal = 1 << 4, // arcp
  AllowContract = 1 << 5, // contract
  ApproxFunc = 1 << 6, // afn
  Fast = (1 << 7) - 1,
}

/** `!name !ref` after an instruction or on a function/global; `ref` is verbatim (`!12`, `!{}`). */
export interface MetadataAttachment {
  name: string;
  ref: string;
}

/** Memory ordering and scope of atomic instructions (`load atomic`, `fence`, `cmpxchg`, `atomicrmw`). */
export interface AtomicInfo {
  /** `syncscope("singlethread")` text of the scope name, undefined for the default system scope. */
  syncScope?: string;
  ordering: string;
  /** cmpxchg only. */
  failureOrdering?: string;
}

/** Attributes of a call site; all verbatim attribute text (`noundef nonnull`, `#3`). */
export interface CallInfo {
  /** The function type of the call (`call i32 (i8*, ...) @printf(...)`). */
  functionType: FunctionType;
  /** `fastcc`, `cc 10`, ... ; undefined for the default C convention. */
  callingConv?: string;
  returnAttrs: string;
  /** One entry per argument (empty string when none). */
  argAttrs: string[];
  /** Function attributes after the argument list (`#3`, `nounwind`), verbatim. */
  fnAttrs: string;
  /** `addrspace(N)` of the callee when printed. */
  addrSpace?: string;
  /**
   * Operand bundles (`[ "align"(i8* %p, i64 16) ]`): their values are operands right after the
   * arguments, `count` of them per bundle, in order.
   */
  bundles?: { tag: string; count: number }[];
}

export interface Instruction extends UserBase {
  readonly kind: 'instruction';
  opcode: Opcode;
  /** Result type (`void` when the instruction yields nothing). For `store` it is void. */
  type: Type;
  name: string | undefined;
  parent: BasicBlock | undefined;
  /** InstFlag bits. */
  flags: number;
  /** FastMathFlag bits (fadd, fcmp, call, select, phi, fneg ... on FP values). */
  fastMath: number;
  /** icmp / fcmp. */
  predicate?: Predicate;
  /** `align N` of load, store, alloca, cmpxchg, atomicrmw. */
  align?: number;
  /** getelementptr: the source element type. */
  sourceElementType?: Type;
  /** alloca: the allocated type (the result type is a pointer to it). */
  allocatedType?: Type;
  /** alloca: `addrspace(N)` of the result when not 0. */
  addrSpace?: number;
  /** phi: the block of each incoming value (same length as operands). */
  incomingBlocks?: BasicBlock[];
  /** extractvalue / insertvalue constant indices. */
  indices?: number[];
  /** call / invoke / callbr. */
  call?: CallInfo;
  /** callbr: number of indirect destinations at the end of the operands. */
  indirectCount?: number;
  /** atomicrmw operation (`add`, `xchg`, ...). */
  rmwOperation?: string;
  atomic?: AtomicInfo;
  /** landingpad: kind of each clause operand. */
  clauses?: ('catch' | 'filter')[];
  /** catchswitch / cleanupret: `unwind to caller` (no unwind destination operand). */
  unwindToCaller?: boolean;
  /** `!dbg`, `!tbaa`, ... in printed order. */
  metadata: MetadataAttachment[];
}

export interface Argument extends ValueBase {
  readonly kind: 'argument';
  name: string | undefined;
  parent: IrFunction;
  index: number;
  /** Parameter attributes, verbatim (`noundef nonnull align 8`), '' when none. */
  attrs: string;
}

export interface BasicBlock extends ValueBase {
  readonly kind: 'block';
  type: LabelType;
  name: string | undefined;
  parent: IrFunction | undefined;
  instructions: Instruction[];
}

/* ---------------------------------------------------------------- globals */

export interface IrFunction extends UserBase {
  readonly kind: 'function';
  /** Pointer to `functionType`. */
  type: PointerType;
  name: string;
  functionType: FunctionType;
  /** Words before the return type, verbatim (`define`/`declare` excluded): `internal fastcc`, `dso_local`. */
  prefix: string;
  returnAttrs: string;
  args: Argument[];
  /** Everything after the parameter list up to `personality` or `{`: `#0`, `unnamed_addr`, `section "x"`, `align 16`, `comdat`. */
  suffix: string;
  /** `!dbg !5` and others after the attributes. */
  metadata: MetadataAttachment[];
  /** True for `declare`; such a function has no blocks. */
  isDeclaration: boolean;
  blocks: BasicBlock[];
  /** operands: [personality] when `hasPersonality`. */
  hasPersonality: boolean;
  parent: Module;
}

export interface GlobalVariable extends UserBase {
  readonly kind: 'global';
  /** Pointer to `valueType` in `addrSpace`. */
  type: PointerType;
  name: string;
  valueType: Type;
  /** Linkage, visibility, thread_local(...), unnamed_addr, addrspace(N), ... verbatim. */
  prefix: string;
  isConstant: boolean;
  /** `, section "x", align 8, !dbg !0` and the like, verbatim (starting with `,` or ` #` when present). */
  suffix: string;
  /** operands: [initializer] when it has one (definitions). */
  hasInitializer: boolean;
  parent: Module;
}

/** `@a = ... alias T, T* @b` or `ifunc`; operands: [aliasee or resolver]. */
export interface GlobalAlias extends UserBase {
  readonly kind: 'alias';
  type: PointerType;
  name: string;
  valueType: Type;
  isIFunc: boolean;
  prefix: string;
  suffix: string;
  parent: Module;
}

export interface Module {
  readonly kind: 'module';
  /** Name used in error messages (file name or `<stdin>`). */
  sourceName: string;
  sourceFilename: string | undefined;
  dataLayout: string | undefined;
  triple: string | undefined;
  /** `module asm "..."` lines, verbatim. */
  moduleAsm: string[];
  /** Named struct types in definition order. */
  namedTypes: StructType[];
  /** `$name = comdat any` lines, verbatim. */
  comdats: string[];
  globals: GlobalVariable[];
  aliases: GlobalAlias[];
  functions: IrFunction[];
  /** Global values by name (without `@`). Keep in sync via the module functions (`addFunction`...). */
  symbols: Map<string, GlobalValue>;
  /** `#0` -> `{ nounwind ... }` text, in printed order. Key is the number. */
  attributeGroups: Map<number, string>;
  /** `!llvm.dbg.cu` -> `!{!0}`: key without `!`, body verbatim. */
  namedMetadata: Map<string, string>;
  /** `!12 = distinct !DILocation(...)`: key 12, body verbatim (`distinct !DILocation(...)`). */
  metadata: Map<number, string>;
}

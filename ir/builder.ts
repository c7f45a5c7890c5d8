// The builder: creates instructions at an insertion point, like LLVM's IRBuilder.
// Every method returns the new (inserted) instruction; names are optional and may repeat
// (the printer makes them unique).
import { attributeGroup } from './attributes';
import { firstInsertionIndex } from './cfg';
import { addIncoming, insertBlockAfter, insertInstruction } from './edit';
import { constInt, createBlock, createInstruction, type InstructionFields } from './nodes';
import { gepResultType } from './parser';
import { functionType as functionTypeOf, i1, i32, i64, literalStruct, pointerTo, vectorOf, voidType } from './type-ops';
import { getOrInsertFunction } from './module';
import {
  InstFlag,
  type BasicBlock,
  type FcmpPredicate,
  type FunctionType,
  type IcmpPredicate,
  type Instruction,
  type IntegerType,
  type IrFunction,
  type MetadataAttachment,
  type Module,
  type Opcode,
  type Type,
  type Value,
} from './types';

export type BinaryOpcode =
  | 'add' | 'fadd' | 'sub' | 'fsub' | 'mul' | 'fmul' | 'udiv' | 'sdiv' | 'fdiv' | 'urem' | 'srem' | 'frem'
  | 'shl' | 'lshr' | 'ashr' | 'and' | 'or' | 'xor';
export type CastOpcode =
  | 'trunc' | 'zext' | 'sext' | 'fptrunc' | 'fpext' | 'fptoui' | 'fptosi' | 'uitofp' | 'sitofp'
  | 'ptrtoint' | 'inttoptr' | 'bitcast' | 'addrspacecast';

export interface BinaryOptions {
  name?: string;
  /** InstFlag bits: NoUnsignedWrap, NoSignedWrap, Exact. */
  flags?: number;
  /** FastMathFlag bits. */
  fastMath?: number;
}

export class IrBuilder {
  private block: BasicBlock | undefined;
  /** Insertion index in `block`; undefined means "at the end". */
  private index: number | undefined;
  /** Attachments (e.g. a `!dbg` location) put on every instruction built. */
  metadata: MetadataAttachment[] = [];

  constructor(block?: BasicBlock) {
    if (block) this.positionAtEnd(block);
  }

  get insertBlock(): BasicBlock | undefined {
    return this.block;
  }

  positionAtEnd(block: BasicBlock): this {
    this.block = block;
    this.index = undefined;
    return this;
  }

  /** Before `inst` (later instructions built go before it too, in order). */
  positionBefore(inst: Instruction): this {
    const b = inst.parent;
    if (!b) throw new Error('positionBefore: instruction is not in a block');
    this.block = b;
    this.index = b.instructions.indexOf(inst);
    return this;
  }

  /** After the phis (and EH pads) of `block`. */
  positionAtStart(block: BasicBlock): this {
    this.block = block;
    this.index = firstInsertionIndex(block);
    return this;
  }

  /** Inserts an instruction built elsewhere at the insertion point. */
  insert(inst: Instruction, name?: string): Instruction {
    const b = this.block;
    if (!b) throw new Error('IrBuilder: no insertion point');
    if (name !== undefined) inst.name = name;
    if (this.metadata.length) inst.metadata.push(...this.metadata.map((m) => ({ ...m })));
    if (this.index === undefined) insertInstruction(b, inst);
    else insertInstruction(b, inst, this.index++);
    return inst;
  }

  private make(opcode: Opcode, type: Type, ops: readonly Value[], fields: InstructionFields, name?: string): Instruction {
    return this.insert(createInstruction(opcode, type, ops, fields), name);
  }

  /* ---------------------------------------------------------- arithmetic */

  binary(op: BinaryOpcode, a: Value, b: Value, o: BinaryOptions = {}): Instruction {
    return this.make(op, a.type, [a, b], { flags: o.flags ?? 0, fastMath: o.fastMath ?? 0 }, o.name);
  }
  add(a: Value, b: Value, name?: string, flags = 0): Instruction {
    return this.binary('add', a, b, { name, flags });
  }
  sub(a: Value, b: Value, name?: string, flags = 0): Instruction {
    return this.binary('sub', a, b, { name, flags });
  }
  mul(a: Value, b: Value, name?: string, flags = 0): Instruction {
    return this.binary('mul', a, b, { name, flags });
  }
  /** add nsw */
  addNSW(a: Value, b: Value, name?: string): Instruction {
    return this.add(a, b, name, InstFlag.NoSignedWrap);
  }
  and(a: Value, b: Value, name?: string): Instruction {
    return this.binary('and', a, b, { name });
  }
  or(a: Value, b: Value, name?: string): Instruction {
    return this.binary('or', a, b, { name });
  }
  fneg(v: Value, name?: string, fastMath = 0): Instruction {
    return this.make('fneg', v.type, [v], { fastMath }, name);
  }

  icmp(predicate: IcmpPredicate, a: Value, b: Value, name?: string): Instruction {
    const t = a.type.kind === 'vector' ? vectorOf(i1, a.type.length, a.type.scalable) : i1;
    return this.make('icmp', t, [a, b], { predicate }, name);
  }
  fcmp(predicate: FcmpPredicate, a: Value, b: Value, name?: string, fastMath = 0): Instruction {
    const t = a.type.kind === 'vector' ? vectorOf(i1, a.type.length, a.type.scalable) : i1;
    return this.make('fcmp', t, [a, b], { predicate, fastMath }, name);
  }
  select(cond: Value, a: Value, b: Value, name?: string): Instruction {
    return this.make('select', a.type, [cond, a, b], {}, name);
  }
  cast(op: CastOpcode, v: Value, to: Type, name?: string): Instruction {
    return this.make(op, to, [v], {}, name);
  }
  zext(v: Value, to: Type, name?: string): Instruction {
    return this.cast('zext', v, to, name);
  }
  sext(v: Value, to: Type, name?: string): Instruction {
    return this.cast('sext', v, to, name);
  }
  trunc(v: Value, to: Type, name?: string): Instruction {
    return this.cast('trunc', v, to, name);
  }
  bitcast(v: Value, to: Type, name?: string): Instruction {
    return this.cast('bitcast', v, to, name);
  }
  /** sext/trunc (or nothing) to make an integer `v` of type `to`. */
  intCast(v: Value, to: IntegerType, signed: boolean, name?: string): Value {
    const from = v.type;
    if (from.kind !== 'int') throw new TypeError('intCast: not an integer');
    if (from.bits === to.bits) return v;
    if (from.bits > to.bits) return this.trunc(v, to, name);
    return this.cast(signed ? 'sext' : 'zext', v, to, name);
  }
  freeze(v: Value, name?: string): Instruction {
    return this.make('freeze', v.type, [v], {}, name);
  }

  /* ---------------------------------------------------------- memory */

  alloca(type: Type, name?: string, align?: number): Instruction {
    return this.make('alloca', pointerTo(type), [], { allocatedType: type, align }, name);
  }
  load(type: Type, ptr: Value, name?: string, align?: number): Instruction {
    return this.make('load', type, [ptr], { align }, name);
  }
  store(value: Value, ptr: Value, align?: number): Instruction {
    return this.make('store', voidType, [value, ptr], { align });
  }
  /** `atomicrmw add ptr, value monotonic`: the value before the add (a counter threads share). */
  atomicAdd(ptr: Value, value: Value, name?: string): Instruction {
    return this.make('atomicrmw', value.type, [ptr, value], { atomic: { ordering: 'monotonic' }, rmwOperation: 'add' }, name);
  }
  /** `load atomic type, ptr ordering, align N` (a flag another thread publishes). */
  atomicLoad(type: Type, ptr: Value, ordering: string, align: number, name?: string): Instruction {
    return this.make('load', type, [ptr], { align, atomic: { ordering } }, name);
  }
  /** `store atomic value, ptr ordering, align N`. */
  atomicStore(value: Value, ptr: Value, ordering: string, align: number): Instruction {
    return this.make('store', voidType, [value, ptr], { align, atomic: { ordering } });
  }
  /** `getelementptr [inbounds] sourceElementType, ptr, indices...` with the result type computed. */
  gep(sourceElementType: Type, ptr: Value, indices: readonly Value[], name?: string, inBounds = true): Instruction {
    const ops = [ptr, ...indices];
    return this.make('getelementptr', gepResultType(sourceElementType, ops), ops, {
      sourceElementType,
      flags: inBounds ? InstFlag.InBounds : 0,
    }, name);
  }
  extractValue(agg: Value, indices: readonly number[], type: Type, name?: string): Instruction {
    return this.make('extractvalue', type, [agg], { indices: indices.slice() }, name);
  }
  insertValue(agg: Value, v: Value, indices: readonly number[], name?: string): Instruction {
    return this.make('insertvalue', agg.type, [agg, v], { indices: indices.slice() }, name);
  }
  extractElement(vec: Value, index: Value, name?: string): Instruction {
    const t = vec.type.kind === 'vector' ? vec.type.element : voidType;
    return this.make('extractelement', t, [vec, index], {}, name);
  }
  insertElement(vec: Value, v: Value, index: Value, name?: string): Instruction {
    return this.make('insertelement', vec.type, [vec, v, index], {}, name);
  }
  shuffleVector(a: Value, b: Value, mask: Value, name?: string): Instruction {
    const el = a.type.kind === 'vector' ? a.type.element : voidType;
    const n = mask.type.kind === 'vector' ? mask.type.length : 0;
    return this.make('shufflevector', vectorOf(el, n), [a, b, mask], {}, name);
  }
  cmpxchg(ptr: Value, cmp: Value, nv: Value, ordering = 'seq_cst', failure = 'seq_cst', name?: string): Instruction {
    return this.make('cmpxchg', literalStruct([cmp.type, i1]), [ptr, cmp, nv], {
      atomic: { ordering, failureOrdering: failure },
    }, name);
  }

  /* ---------------------------------------------------------- control flow */

  /** An empty phi; add entries with `addIncoming` (or pass them here). */
  phi(type: Type, name?: string, incoming: readonly [Value, BasicBlock][] = []): Instruction {
    const p = this.make('phi', type, [], { incomingBlocks: [] }, name);
    for (const [v, b] of incoming) addIncoming(p, v, b);
    return p;
  }
  br(dest: BasicBlock): Instruction {
    return this.make('br', voidType, [dest], {});
  }
  condBr(cond: Value, ifTrue: BasicBlock, ifFalse: BasicBlock): Instruction {
    return this.make('br', voidType, [cond, ifTrue, ifFalse], {});
  }
  switch(v: Value, defaultDest: BasicBlock, cases: readonly [Value, BasicBlock][] = []): Instruction {
    const ops: Value[] = [v, defaultDest];
    for (const [c, b] of cases) ops.push(c, b);
    return this.make('switch', voidType, ops, {});
  }
  ret(v?: Value): Instruction {
    return this.make('ret', voidType, v ? [v] : [], {});
  }
  unreachable(): Instruction {
    return this.make('unreachable', voidType, [], {});
  }

  /**
   * `call` of a function (or of a pointer with an explicit `type`). Argument and return
   * attributes are verbatim strings (default none).
   */
  call(callee: IrFunction | Value, args: readonly Value[], name?: string, type?: FunctionType, fnAttrs = ''): Instruction {
    const ft = type ?? (callee.kind === 'function' ? callee.functionType : undefined);
    if (!ft) throw new TypeError('call: the function type of an indirect call must be given');
    const inst = createInstruction('call', ft.returnType, [callee, ...args], {
      call: { functionType: ft, returnAttrs: '', argAttrs: args.map(() => ''), fnAttrs },
    });
    return this.insert(inst, ft.returnType.kind === 'void' ? undefined : name);
  }
}

/** The blocks and induction variable of a loop made by `buildCountedLoop`. */
export interface CountedLoop {
  header: BasicBlock;
  /** The first block of the body (the body may add more blocks, e.g. inner loops). */
  body: BasicBlock;
  latch: BasicBlock;
  exit: BasicBlock;
  /** The induction variable (a phi in `header`). */
  iv: Instruction;
  /** `iv + step` in the latch. */
  next: Instruction;
}

export interface CountedLoopOptions {
  /** Name prefix of the blocks and values (default `loop`). */
  name?: string;
  /** Step added each iteration (default 1 of the induction variable's type). */
  step?: Value;
  /** Comparison that keeps the loop running (default `slt`: iv < end, signed). */
  predicate?: IcmpPredicate;
  /** Wrap flags on the increment (default nsw). */
  flags?: number;
}

/**
 * Builds `for (iv = start; iv <pred> end; iv += step) body(iv)` at the builder's position,
 * which must be the end of a block without terminator. The loop tests at the top (the body
 * may run zero times). `body` is called with the builder positioned in the body; it may build
 * more blocks (nested loops), and the loop continues from wherever the builder ends up.
 * Afterwards the builder is positioned at the end of `exit`. Blocks go right after the
 * current block, in the order header, body, latch, exit.
 */
export function buildCountedLoop(
  b: IrBuilder,
  start: Value,
  end: Value,
  body: (iv: Instruction, loop: CountedLoop) => void,
  options: CountedLoopOptions = {},
): CountedLoop {
  const pre = b.insertBlock;
  if (!pre) throw new Error('buildCountedLoop: builder has no insertion point');
  if (pre.instructions.length && isTerminatorOpcode(pre.instructions[pre.instructions.length - 1]!.opcode)) {
    throw new Error('buildCountedLoop: the current block already has a terminator');
  }
  const name = options.name ?? 'loop';
  const header = insertBlockAfter(pre, createBlock(`${name}.header`));
  const bodyBlock = insertBlockAfter(header, createBlock(`${name}.body`));
  const latch = insertBlockAfter(bodyBlock, createBlock(`${name}.latch`));
  const exit = insertBlockAfter(latch, createBlock(`${name}.exit`));
  b.positionAtEnd(pre).br(header);
  b.positionAtEnd(header);
  const iv = b.phi(start.type, `${name}.iv`, [[start, pre]]);
  const cond = b.icmp(options.predicate ?? 'slt', iv, end, `${name}.cond`);
  b.condBr(cond, bodyBlock, exit);
  const step = options.step ?? constInt(start.type as IntegerType, 1);
  b.positionAtEnd(latch);
  const next = b.add(iv, step, `${name}.next`, options.flags ?? InstFlag.NoSignedWrap);
  b.br(header);
  addIncoming(iv, next, latch);
  const loop: CountedLoop = { header, body: bodyBlock, latch, exit, iv, next };
  b.positionAtEnd(bodyBlock);
  body(iv, loop);
  b.br(latch);
  b.positionAtEnd(exit);
  return loop;
}

function isTerminatorOpcode(op: Opcode): boolean {
  return ['ret', 'br', 'switch', 'indirectbr', 'invoke', 'resume', 'unreachable', 'cleanupret', 'catchret', 'catchswitch', 'callbr'].includes(op);
}

/**
 * The declaration of an LLVM intrinsic (`llvm.smin.i64`, `llvm.fmuladd.v4f64`, ...), added
 * with the attributes LLVM gives such intrinsics when the module lacks it. `attrs` is the
 * verbatim attribute text of the declaration (default: the usual pure-intrinsic set).
 */
export function getIntrinsic(
  m: Module,
  name: string,
  type: FunctionType,
  attrs = 'nofree nosync nounwind readnone speculatable willreturn',
): IrFunction {
  if (!name.startsWith('llvm.')) throw new Error(`getIntrinsic: ${name} is not an intrinsic name`);
  const existing = m.symbols.get(name);
  if (existing) {
    if (existing.kind !== 'function') throw new Error(`getIntrinsic: @${name} is not a function`);
    return existing;
  }
  // attribute groups are numbered; reuse one with the same text, or add one
  return getOrInsertFunction(m, name, type, attributeGroup(m, attrs));
}

/** `llvm.smin`/`smax`/`umin`/`umax` of two integers of the same type. */
export function buildMinMax(b: IrBuilder, m: Module, which: 'smin' | 'smax' | 'umin' | 'umax', x: Value, y: Value, name?: string): Instruction {
  const t = x.type;
  const suffix = t.kind === 'int' ? `i${t.bits}` : t.kind === 'vector' && t.element.kind === 'int' ? `v${t.length}i${t.element.bits}` : undefined;
  if (!suffix) throw new TypeError(`${which}: not an integer type`);
  const fn = getIntrinsic(m, `llvm.${which}.${suffix}`, functionTypeOf(t, [t, t]));
  return b.call(fn, [x, y], name);
}

/* ---------------------------------------------------------- small constant helpers */

export function i32Const(v: number | bigint): Value {
  return constInt(i32, v);
}
export function i64Const(v: number | bigint): Value {
  return constInt(i64, v);
}


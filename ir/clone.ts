// Cloning instructions, regions (sets of blocks) and functions with value remapping.
import {
  blockAddress,
  constAggregate,
  constExpr,
  createArgument,
  createBlock,
  createFunction,
  createInstruction,
  dsoLocalEquivalent,
  metadataWrapping,
} from './nodes';
import type { BasicBlock, Instruction, IrFunction, Value } from './types';
import { appendOperand, dropAllOperands, setOperand } from './uses';

/** Old value -> new value. Cloning functions fill it and read it. */
export type ValueMap = Map<Value, Value>;

/** A copy of `inst` (detached, unnamed-as-original name kept) using the same operands. */
export function cloneInstruction(inst: Instruction): Instruction {
  return createInstruction(inst.opcode, inst.type, inst.operands, {
    name: inst.name,
    flags: inst.flags,
    fastMath: inst.fastMath,
    predicate: inst.predicate,
    align: inst.align,
    sourceElementType: inst.sourceElementType,
    allocatedType: inst.allocatedType,
    addrSpace: inst.addrSpace,
    incomingBlocks: inst.incomingBlocks?.slice(),
    indices: inst.indices?.slice(),
    call: inst.call
      ? { ...inst.call, argAttrs: inst.call.argAttrs.slice(), bundles: inst.call.bundles?.map((b) => ({ ...b })) }
      : undefined,
    indirectCount: inst.indirectCount,
    rmwOperation: inst.rmwOperation,
    atomic: inst.atomic ? { ...inst.atomic } : undefined,
    clauses: inst.clauses?.slice(),
    unwindToCaller: inst.unwindToCaller,
    metadata: inst.metadata.map((m) => ({ ...m })),
  });
}

/**
 * The value `v` stands for under `map`: mapped values directly; constants and metadata
 * wrappers that contain mapped values are rebuilt; anything else is itself.
 */
export function mapValue(v: Value, map: ValueMap): Value {
  const direct = map.get(v);
  if (direct !== undefined) return direct;
  switch (v.kind) {
    case 'metadata':
    case 'const-expr':
    case 'const-aggregate':
    case 'blockaddress':
    case 'dso-local-equivalent': {
      if (v.operands.length === 0) return v;
      const ops = v.operands.map((o) => mapValue(o, map));
      if (ops.every((o, i) => o === v.operands[i])) return v;
      switch (v.kind) {
        case 'metadata':
          return metadataWrapping(ops, v.argList);
        case 'const-expr':
          return constExpr(v.opcode, v.type, ops, {
            flags: v.flags,
            ...(v.predicate !== undefined ? { predicate: v.predicate } : {}),
            ...(v.sourceElementType !== undefined ? { sourceElementType: v.sourceElementType } : {}),
            ...(v.indices !== undefined ? { indices: v.indices } : {}),
            ...(v.inRangeIndex !== undefined ? { inRangeIndex: v.inRangeIndex } : {}),
          });
        case 'const-aggregate':
          return constAggregate(v.type, ops);
        case 'blockaddress':
          return blockAddress(v.type, ops[0]!, ops[1] as BasicBlock);
        case 'dso-local-equivalent':
          return dsoLocalEquivalent(v.type, ops[0]!);
      }
      return v;
    }
    default:
      return v;
  }
}

/** Rewrites the operands (and phi incoming blocks) of `inst` through `map`. */
export function remapInstruction(inst: Instruction, map: ValueMap): void {
  for (let i = 0; i < inst.operands.length; i++) {
    const o = inst.operands[i]!;
    const n = mapValue(o, map);
    if (n !== o) setOperand(inst, i, n);
  }
  const blocks = inst.incomingBlocks;
  if (blocks) {
    for (let i = 0; i < blocks.length; i++) {
      const n = map.get(blocks[i]!);
      if (n !== undefined) blocks[i] = n as BasicBlock;
    }
  }
}

/**
 * Clones `blocks` (a region of one function): each block and instruction is copied, the
 * copies are recorded in `map`, and every operand of a copy that refers to something cloned
 * refers to its copy (values defined outside the region stay, unless `map` already maps
 * them, e.g. to substitute arguments). The new blocks get `nameSuffix` appended to their
 * names and are NOT inserted anywhere: place them with `insertBlock`/`insertBlockAfter`.
 * Phis of blocks outside the region are not touched.
 */
export function cloneBlocks(blocks: readonly BasicBlock[], map: ValueMap = new Map(), nameSuffix = ''): BasicBlock[] {
  const copies: BasicBlock[] = [];
  const newInsts: Instruction[] = [];
  for (const b of blocks) {
    const nb = createBlock(b.name !== undefined ? b.name + nameSuffix : undefined);
    map.set(b, nb);
    copies.push(nb);
  }
  blocks.forEach((b, bi) => {
    const nb = copies[bi]!;
    for (const inst of b.instructions) {
      const ni = cloneInstruction(inst);
      if (ni.name !== undefined) ni.name += nameSuffix;
      ni.parent = nb;
      nb.instructions.push(ni);
      map.set(inst, ni);
      newInsts.push(ni);
    }
  });
  for (const ni of newInsts) remapInstruction(ni, map);
  return copies;
}

export interface CloneFunctionOptions {
  /**
   * Keep debug info? A DISubprogram may belong to only one function, so by default the
   * clone drops the function's `!dbg`, the instructions' `!dbg` and `llvm.dbg.*` calls.
   */
  keepDebugInfo?: boolean;
}

/**
 * A copy of `fn` named `name`, added to the module right after `fn`. Arguments and blocks are
 * remapped; `map` receives old -> new for arguments, blocks and instructions.
 */
export function cloneFunction(fn: IrFunction, name: string, map: ValueMap = new Map(), options: CloneFunctionOptions = {}): IrFunction {
  const m = fn.parent;
  if (m.symbols.has(name)) throw new Error(`cloneFunction: @${name} already exists`);
  const nf = createFunction(m, name, fn.functionType, fn.type.addrSpace);
  nf.prefix = fn.prefix;
  nf.returnAttrs = fn.returnAttrs;
  nf.suffix = fn.suffix.replace(/\bcomdat(\s*\(\$[^)]*\))?/, '').trim();
  nf.isDeclaration = fn.isDeclaration;
  nf.metadata = fn.metadata.filter((md) => options.keepDebugInfo || md.name !== 'dbg').map((md) => ({ ...md }));
  nf.args = fn.args.map((a, i) => createArgument(a.type, nf, i, a.name, a.attrs));
  fn.args.forEach((a, i) => map.set(a, nf.args[i]!));
  if (fn.hasPersonality) {
    nf.hasPersonality = true;
    appendOperand(nf, fn.operands[0]!);
  }
  const blocks = cloneBlocks(fn.blocks, map);
  for (const b of blocks) b.parent = nf;
  nf.blocks = blocks;
  if (!options.keepDebugInfo) stripDebugInfo(nf);
  const idx = m.functions.indexOf(fn);
  m.functions.splice(idx + 1, 0, nf);
  m.symbols.set(name, nf);
  return nf;
}

/** Removes `!dbg` attachments and `llvm.dbg.*` intrinsic calls from a function. */
export function stripDebugInfo(fn: IrFunction): void {
  for (const b of fn.blocks) {
    b.instructions = b.instructions.filter((inst) => {
      const callee = inst.call ? inst.operands[0] : undefined;
      if (callee && callee.kind === 'function' && callee.name.startsWith('llvm.dbg.')) {
        dropAllOperands(inst);
        inst.parent = undefined;
        return false;
      }
      inst.metadata = inst.metadata.filter((md) => md.name !== 'dbg');
      return true;
    });
  }
  fn.metadata = fn.metadata.filter((md) => md.name !== 'dbg');
}

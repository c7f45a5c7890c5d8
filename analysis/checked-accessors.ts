// Checked accessors (issue 22): small functions whose only way to return computes a value
// without side effects, every other path being an error path (analysis/error-blocks.ts). uBLAS's
// bounds-checked `unbounded_array::operator[]` and `basic_row_major::element` (builds without
// BOOST_UBLAS_NDEBUG) are such functions: they compare the index with a size and either return
// an address or print to std::cerr and throw `bad_index`. The message makes them too big for -O3
// to inline, so the loops that index matrices call them, and a call that may throw keeps a loop
// out of every SCoP. Inlined, the comparison is a branch into error blocks, which detection
// assumes away behind the run-time check (cli/inline-checked.ts does the inlining).
import { type BasicBlock, type Instruction, type IrFunction, type Module, InstFlag, calledFunction, functionAttributes, successors, terminator } from '../ir';
import { findErrorBlocks } from './error-blocks';

/** Limits on the returning path: an accessor is a handful of comparisons, loads and GEPs. */
const maxReturningBlocks = 8;
const maxReturningInstructions = 48;

/** Intrinsics allowed on the returning path: they have no effect a caller could observe. */
const harmlessIntrinsic = /^llvm\.(lifetime\.(start|end)|assume|dbg\.[a-z]+|expect)(\.|$)/;

function returningPathIsPure(b: BasicBlock): boolean {
  for (const i of b.instructions) {
    if (i.opcode === 'store' || i.opcode === 'fence' || i.opcode === 'cmpxchg' || i.opcode === 'atomicrmw' || i.opcode === 'va_arg') return false;
    if (i.opcode === 'load' && ((i.flags & InstFlag.Volatile) !== 0 || i.atomic !== undefined)) return false;
    if (i.opcode === 'call' || i.opcode === 'invoke' || i.opcode === 'callbr') {
      const callee = calledFunction(i);
      if (i.opcode !== 'call' || !callee || !harmlessIntrinsic.test(callee.name)) return false;
    }
  }
  return true;
}

/**
 * Whether `fn` is a checked accessor: defined, inlinable (not `noinline`/`optnone`), with at
 * least one error block, and whose other blocks form a small acyclic graph from the entry to one
 * `ret` that neither stores nor calls (loads, arithmetic, comparisons and GEPs only).
 */
export function isCheckedAccessor(fn: IrFunction): boolean {
  if (fn.isDeclaration || fn.blocks.length === 0 || fn.functionType.varArg) return false;
  const attrs = functionAttributes(fn);
  if (attrs.has('noinline') || attrs.has('optnone')) return false;
  const errors = findErrorBlocks(fn);
  if (errors.size === 0) return false;
  const returning = fn.blocks.filter((b) => !errors.has(b));
  if (returning.length > maxReturningBlocks) return false;
  if (returning.reduce((n, b) => n + b.instructions.length, 0) > maxReturningInstructions) return false;
  if (returning.filter((b) => terminator(b)?.opcode === 'ret').length !== 1) return false;
  if (!returning.every(returningPathIsPure)) return false;
  // Acyclic: a depth-first walk of the returning blocks meets no block still on its stack.
  const state = new Map<BasicBlock, 'open' | 'done'>();
  const acyclic = (b: BasicBlock): boolean => {
    state.set(b, 'open');
    for (const s of successors(b)) {
      if (errors.has(s)) continue;
      const st = state.get(s);
      if (st === 'open' || (st === undefined && !acyclic(s))) return false;
    }
    state.set(b, 'done');
    return true;
  };
  return acyclic(fn.blocks[0]!);
}

/** The blocks of `fn` on a cycle of its control-flow graph (in some loop). */
function blocksOnCycles(fn: IrFunction): Set<BasicBlock> {
  // Tarjan's strongly connected components; a block is on a cycle when its component has two
  // blocks or more, or it branches to itself.
  const index = new Map<BasicBlock, number>();
  const low = new Map<BasicBlock, number>();
  const stack: BasicBlock[] = [];
  const onStack = new Set<BasicBlock>();
  const out = new Set<BasicBlock>();
  let next = 0;
  const visit = (root: BasicBlock): void => {
    // Iterative, as functions may have thousands of blocks: frames of (block, next successor).
    const frames: { b: BasicBlock; succ: BasicBlock[]; k: number }[] = [];
    const open = (b: BasicBlock) => {
      index.set(b, next);
      low.set(b, next++);
      stack.push(b);
      onStack.add(b);
      frames.push({ b, succ: successors(b), k: 0 });
    };
    open(root);
    while (frames.length > 0) {
      const f = frames[frames.length - 1]!;
      if (f.k < f.succ.length) {
        const s = f.succ[f.k++]!;
        if (!index.has(s)) open(s);
        else if (onStack.has(s)) low.set(f.b, Math.min(low.get(f.b)!, index.get(s)!));
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low.set(parent.b, Math.min(low.get(parent.b)!, low.get(f.b)!));
      if (low.get(f.b) !== index.get(f.b)) continue;
      const component: BasicBlock[] = [];
      for (let x = stack.pop()!; ; x = stack.pop()!) {
        onStack.delete(x);
        component.push(x);
        if (x === f.b) break;
      }
      if (component.length > 1 || successors(f.b).includes(f.b)) for (const x of component) out.add(x);
    }
  };
  for (const b of fn.blocks) if (!index.has(b)) visit(b);
  return out;
}

/**
 * The checked accessors some other function of `m` calls (or invokes) inside a loop: those
 * whose inlining can let that loop into a SCoP.
 */
export function checkedAccessorsCalledInLoops(m: Module): IrFunction[] {
  const verdicts = new Map<IrFunction, boolean>();
  const found = new Set<IrFunction>();
  for (const fn of m.functions) {
    if (fn.isDeclaration) continue;
    let cycles: Set<BasicBlock> | undefined;
    for (const b of fn.blocks) {
      for (const i of b.instructions as Instruction[]) {
        if (i.opcode !== 'call' && i.opcode !== 'invoke') continue;
        const callee = calledFunction(i);
        if (!callee || callee === fn || callee.isDeclaration || found.has(callee)) continue;
        let ok = verdicts.get(callee);
        if (ok === undefined) verdicts.set(callee, ok = isCheckedAccessor(callee));
        if (!ok) continue;
        cycles ??= blocksOnCycles(fn);
        if (cycles.has(b)) found.add(callee);
      }
    }
  }
  return [...found];
}

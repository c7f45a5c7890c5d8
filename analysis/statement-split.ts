// Statement splitting (Polly's `-polly-stmt-granularity=scalar-indep`, narrowed): one block
// whose instructions form two independent computations becomes two statements, so the
// schedule optimizer may give each its own loops.
//
//   for (k) { C[k][j] += alpha*B[i][j]*A[i][k];      Stmt_S[i, j, k]    (stores C: no scalar)
//             t += B[k][j]*A[i][k]; }                Stmt_S_b[i, j, k]  (the PHI t: a chain along k)
//
// A block is split only where that lets something move: one part carries a chain through a
// PHI of the block's loop (it reads the PHI and writes its next value: a sum -O3 keeps in a
// register, one location for every iteration, so isl's scheduler keeps its order) and the
// other part touches no PHI and stores to arrays. Parts are the
// union of operand trees (inside the block) of their roots, the stores and the values written
// to scalars; two roots belong to one part when their trees share a load, a call or a
// division (what must run once). Pure arithmetic both trees use (addresses) is computed in
// each (codegen/block-generator.ts copies it on demand). The two parts run one after the
// other in the model's order; that is the block's order for every pair of memory accesses
// to one base pointer where one writes, or the block is not split (the run-time check rules
// out overlap between different base pointers).
import { calledFunction, type Instruction, type Value } from '../ir';
import type { Scop, ScopScalarAccess, ScopStatement } from './scop-detection-types';

const DIVISIONS = new Set(['udiv', 'sdiv', 'urem', 'srem', 'fdiv', 'frem']);
/** Calls that only inform the optimizer (the block generator drops them). */
const IGNORED = /^llvm\.(dbg\.|lifetime\.|assume$|experimental\.noalias\.scope\.decl$)/;

/** The statement as one part of its block (`ScopStatement.instructions`), or itself when it is not split. */
export function splitStatement(st: ScopStatement): readonly ScopStatement[] {
  const block = st.block;
  const inBlock = (v: Value | undefined): v is Instruction => v !== undefined && v.kind === 'instruction' && v.parent === block && v.opcode !== 'phi';
  const order = new Map(block.instructions.map((inst, k) => [inst, k] as const));
  // Side effects other than the accesses the model knows keep the block whole.
  const known = new Set(st.accesses.map((a) => a.instruction));
  if (block.instructions.some((i) => i.opcode === 'call' && !IGNORED.test(calledFunction(i)?.name ?? '') && i.type.kind === 'void' && !known.has(i))) return [st];

  const treeOf = (root: Instruction): Set<Instruction> => {
    const tree = new Set<Instruction>();
    const work = [root];
    while (work.length > 0) {
      const inst = work.pop()!;
      if (tree.has(inst)) continue;
      tree.add(inst);
      for (const op of inst.operands) if (inBlock(op)) work.push(op);
    }
    return tree;
  };
  const roots = [
    ...st.accesses.filter((a) => a.kind === 'write').map((a) => a.instruction),
    ...st.scalars.filter((s) => s.access === 'write').map((s) => (s.kind === 'phi' ? s.incoming : s.value)).filter(inBlock),
  ];
  const unique = [...new Set(roots)];
  if (unique.length < 2) return [st];
  const trees = unique.map(treeOf);
  // Union-find over the roots: trees sharing what must run once are one part.
  const parent = unique.map((_, k) => k);
  const find = (k: number): number => (parent[k] === k ? k : (parent[k] = find(parent[k]!)));
  const once = (i: Instruction): boolean => i.opcode === 'load' || i.opcode === 'store' || i.opcode === 'call' || DIVISIONS.has(i.opcode);
  for (let x = 0; x < trees.length; x++) {
    for (let y = x + 1; y < trees.length; y++) {
      if ([...trees[x]!].some((i) => once(i) && trees[y]!.has(i))) parent[find(x)] = find(y);
    }
  }
  const usesOf = (tree: ReadonlySet<Instruction>, v: Value): boolean => [...tree].some((i) => i.operands.includes(v));
  const phiReads = st.scalars.filter((s) => s.kind === 'phi' && s.access === 'read');
  const phiRoots = new Set(st.scalars.filter((s) => s.kind === 'phi' && s.access === 'write').map((s) => s.incoming));
  // A part is in the chain when it writes a PHI or reads one.
  const chain = new Set<Instruction>();
  const free = new Set<Instruction>();
  const groups = new Map<number, Set<Instruction>>();
  trees.forEach((t, k) => {
    const g = groups.get(find(k)) ?? new Set<Instruction>();
    for (const i of t) g.add(i);
    groups.set(find(k), g);
  });
  if (groups.size < 2) return [st];
  for (const g of groups.values()) {
    const chained = [...g].some((i) => phiRoots.has(i)) || phiReads.some((s) => usesOf(g, s.value));
    for (const i of g) (chained ? chain : free).add(i);
  }
  // The chain must run through the block's own loop: a PHI of this block read and written here
  // (a PHI's start value alone, written for a loop inside, constrains nothing a split would free).
  const recurrent = phiReads.some((r) => r.value.parent === block && st.scalars.some((w) => w.kind === 'phi' && w.access === 'write' && w.value === r.value && chain.has(w.incoming as Instruction)));
  if (!recurrent || chain.size === 0 || free.size === 0 || ![...free].some((i) => i.opcode === 'store')) return [st];
  // Every access belongs to one part (a load no root uses keeps the block whole).
  const memory = st.accesses.map((a) => a.instruction);
  if (memory.some((i) => !chain.has(i) && !free.has(i)) || [...free].some((i) => chain.has(i) && once(i))) return [st];
  const firstOf = (part: ReadonlySet<Instruction>): number => Math.min(...memory.filter((i) => part.has(i)).map((i) => order.get(i)!));
  const [first, second] = firstOf(free) <= firstOf(chain) ? [free, chain] : [chain, free];
  // Conflicting accesses across the parts must already run first part first.
  for (const a of st.accesses.filter((x) => first.has(x.instruction))) {
    for (const b of st.accesses.filter((x) => second.has(x.instruction))) {
      if (a.base === b.base && (a.kind === 'write' || b.kind === 'write') && order.get(a.instruction)! > order.get(b.instruction)!) return [st];
    }
  }
  const scalarsOf = (part: ReadonlySet<Instruction>, isChain: boolean): ScopScalarAccess[] =>
    st.scalars.filter((s) => {
      if (s.access === 'write') return part.has((s.kind === 'phi' ? s.incoming : s.value) as Instruction) || (isChain && !inBlock(s.kind === 'phi' ? s.incoming : s.value));
      // A read no part uses (the loop's control) stays with the chain.
      return usesOf(part, s.value) || (isChain && !usesOf(chain, s.value) && !usesOf(free, s.value));
    });
  const names = [st.name, `${st.name}_b`];
  return [first, second].map((part, k) => ({
    ...st,
    name: names[k]!,
    accesses: st.accesses.filter((a) => part.has(a.instruction)),
    scalars: scalarsOf(part, part === chain),
    instructions: part,
    whole: st,
  }));
}

/** `scop` with every split statement's parts replaced by the block's whole statement (`--split-statements=false`). */
export function unsplitScop(scop: Scop): Scop {
  if (!scop.statements.some((st) => st.whole)) return scop;
  return { ...scop, statements: [...new Set(scop.statements.map((st) => st.whole ?? st))] };
}

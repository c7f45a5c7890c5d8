// Alias scopes for the row jam's jammed loops (transform/row-jam.ts): under each `rowJamMark`,
// isl's AST holds the k loop whose body is the U rows' copies of the chain statement. Their
// accesses to the row's own element of the array the chain writes (x[r], its sum mapped there by
// DeLICM) get one scope, `rows`, and its reads of other elements of that array (x[k], finished
// before the block) another, `finished`, each noalias with the other: transform/row-jam.ts
// checked with isl that within one block those reads never touch an element a row touches.
// LICM can then keep each row's sum in a register across k (the U copies' elements lie a
// constant apart, which basic alias analysis tells apart by itself). The model's elements are
// memory's under the fast path's run-time check, so the scopes add no assumption of their own.
//
// And each floating-point value a jammed row stores into its element passes through
// `llvm.arithmetic.fence` (a no-op for the value and the machine code): without it opt's SLP
// vectorizer packs the U rows' sums into one vector and, with constant row lengths, loads their
// terms a(r, k) with gathers whose addresses it builds anew for every k (forward substitution
// N = 2000, CPU time: 4.3 ms against clang -O3's 3.2 ms; fenced, U scalar chains: 1.1-1.2 ms).
import type { AstNodeTree } from 'isl-wasm';
import { functionType, getOrInsertFunction, IrBuilder, setOperand, type Instruction, type Module } from '../ir';
import { rowJamMark, type RowJammed } from '../transform/row-jam';
import { visitLoops, visitMarks } from './ast-to-ir';
import type { MetadataTable } from './metadata';

type ForNode = Extract<AstNodeTree, { kind: 'for' }>;

/** An access's own scope and those it is noalias with. */
export interface ScopePair {
  readonly own: string;
  readonly others: string[];
}

/** The scopes of one jammed row's accesses to the array its chain writes. */
export interface JammedRow {
  /** For the row's element. */
  readonly scopes: ScopePair;
  /** For the chain's reads of finished elements (`finished.reads`, the original loads). */
  readonly finished: { readonly reads: ReadonlySet<Instruction>; readonly scopes: ScopePair };
}

/** The outermost loops below each row-jam mark of `ast`: the jammed k loops. */
function jammedLoops(ast: AstNodeTree): Set<ForNode> {
  const out = new Set<ForNode>();
  visitMarks(ast, rowJamMark, (mark) =>
    visitLoops(mark.node, (loop) => {
      out.add(loop);
      return false;
    }),
  );
  return out;
}

/**
 * The row jam's scopes in the fast path generated from `ast` for `jammed`: `rowOf(statement,
 * enclosing)` gives a jammed copy of the chain its scopes, undefined elsewhere (undefined: no
 * row-jam mark in the AST, no scopes).
 */
export function jamScopes(ast: AstNodeTree, md: MetadataTable, domainName: string, jammed: RowJammed): { rowOf(statement: string, enclosing: readonly ForNode[]): JammedRow | undefined } | undefined {
  const loops = jammedLoops(ast);
  if (loops.size === 0) return undefined;
  const [rows, finished] = md.scopes(`${domainName} row jam`, ['rows', 'finished']) as [string, string];
  const row: JammedRow = {
    scopes: { own: rows, others: [finished] },
    finished: { reads: new Set(jammed.finishedReads), scopes: { own: finished, others: [rows] } },
  };
  return {
    rowOf: (statement, enclosing) => (statement === jammed.statement && enclosing.some((l) => loops.has(l)) ? row : undefined),
  };
}

/**
 * Makes the floating-point value `store` (a jammed row's store into its element) pass through
 * `llvm.arithmetic.fence` first, so the SLP vectorizer leaves the rows' chains scalar (above).
 * Other stores are left as they are.
 */
export function fenceRowStore(module: Module, store: Instruction): void {
  if (store.opcode !== 'store') return;
  const value = store.operands[0]!;
  const type = value.type;
  if (type.kind !== 'float' || (type.name !== 'double' && type.name !== 'float')) return;
  const fence = getOrInsertFunction(module, `llvm.arithmetic.fence.${type.name === 'double' ? 'f64' : 'f32'}`, functionType(type, [type]));
  setOperand(store, 0, new IrBuilder().positionBefore(store).call(fence, [value], 'tsopt.jam.sum'));
}

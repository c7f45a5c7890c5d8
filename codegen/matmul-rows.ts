// Alias scopes for the rows of the matmul path's micro-tile (transform/matmul-rows.ts): under
// each `matmulRowsMark`, isl's AST holds the unrolled i loop of a full micro-tile, one child per
// row r (Mr copies of the j loop). Each copy's accesses to the array its statement writes (C)
// get the scope of row r in a domain of their own, and noalias with the other rows' scopes: opt
// may then keep the micro-tile in registers across k. A second domain, because LLVM's scoped
// noalias tells two accesses apart only when, in one domain, the noalias list of one holds every
// scope of the other's: C's row r is C (first domain) and row r (second).
//
// And each such access's address as a row start plus a column: the copied statement addresses
// C[i][j] of a run-time row length n as `C + (i*n + j)`; once opt has vectorized and unrolled
// the j loop, the micro-tile's vectors of one row are `C + (i*n + (j0 + 4u))`, sums of values
// basic alias analysis cannot compare, so it cannot tell them apart. As `(C + i*n) + (j0 + 4u)`
// they lie a constant apart from one row start.
import type { AstNodeTree } from 'isl-wasm';
import { InstFlag, IrBuilder, setOperand, type Instruction, type Value } from '../ir';
import { matmulRowsMark } from '../transform/matmul-rows';
import { visitLoops, visitMarks } from './ast-to-ir';
import type { MetadataTable } from './metadata';

type ForNode = Extract<AstNodeTree, { kind: 'for' }>;

/** The loops of each row copy under a rows mark of `ast`, with their row. */
function rowLoops(ast: AstNodeTree): Map<ForNode, number> {
  const out = new Map<ForNode, number>();
  const loopsOf = (n: AstNodeTree, row: number): void => visitLoops(n, (loop) => {
    out.set(loop, row);
    return true;
  });
  visitMarks(ast, matmulRowsMark, (mark) => {
    let copies: AstNodeTree = mark.node;
    while (copies.kind === 'mark') copies = copies.node;
    // Only an unrolled loop: a block of copies, child r running row r (a full micro-tile runs
    // rows 0 to Mr - 1, so its copies are exactly those in order). A loop left rolled has no scopes.
    if (copies.kind === 'block') copies.children.forEach((c, r) => loopsOf(c, r));
  });
  return out;
}

/** The row scopes of one fast path. */
export interface RowScopes {
  /** The row the innermost of `enclosing` (a statement's loops) runs in a micro-tile, if a row copy's. */
  rowOf(enclosing: readonly ForNode[]): number | undefined;
  /** The scopes of an access to C in row `row`: its own, and the other rows' (its noalias). */
  scopes(row: number): { own: string; others: string[] };
}

/** The row scopes of the fast path generated from `ast` (undefined: no rows mark, no scopes). */
export function rowScopes(ast: AstNodeTree, md: MetadataTable, domainName: string): RowScopes | undefined {
  const loops = rowLoops(ast);
  if (loops.size === 0) return undefined;
  const rows = Math.max(...loops.values()) + 1;
  const scopes = md.scopes(`${domainName} rows`, Array.from({ length: rows }, (_, r) => `row ${r}`));
  return {
    rowOf(enclosing) {
      for (let k = enclosing.length - 1; k >= 0; k--) {
        const r = loops.get(enclosing[k]!);
        if (r !== undefined) return r;
      }
      return undefined;
    },
    scopes(row) {
      return { own: scopes[row]!, others: scopes.filter((_, r) => r !== row) };
    },
  };
}

/**
 * Rewrites the address of `access` (a load or store) from `gep T, base, (row + column)` to
 * `gep T, (gep T, base, row), column`, where `row` is the one summand that is a product (the
 * row start i*n of a delinearized C[i][j]); leaves other addresses as they are. `split`:
 * addresses already rewritten (a load and a store sharing one address share its rewrite).
 */
export function splitRowAddress(access: Instruction, split: Map<Value, Value>): void {
  const at = access.opcode === 'load' ? 0 : access.opcode === 'store' ? 1 : -1;
  if (at < 0) return;
  const ptr = access.operands[at]!;
  const done = split.get(ptr);
  if (done) {
    setOperand(access, at, done);
    return;
  }
  if (ptr.kind !== 'instruction' || ptr.opcode !== 'getelementptr' || ptr.operands.length !== 2 || !ptr.sourceElementType) return;
  const sum = ptr.operands[1]!;
  if (sum.kind !== 'instruction' || sum.opcode !== 'add') return;
  const product = (v: Value): boolean => v.kind === 'instruction' && (v.opcode === 'mul' || v.opcode === 'shl');
  const rows = sum.operands.filter(product);
  if (rows.length !== 1) return;
  const row = rows[0]!;
  const column = sum.operands.find((v) => v !== row)!;
  const b = new IrBuilder().positionBefore(ptr);
  // In bounds as the address was: the row start of an element in bounds is in bounds.
  const inBounds = (ptr.flags & InstFlag.InBounds) !== 0;
  const start = b.gep(ptr.sourceElementType, ptr.operands[0]!, [row], 'tsopt.row', inBounds);
  const address = b.gep(ptr.sourceElementType, start, [column], 'tsopt.row.col', inBounds);
  split.set(ptr, address);
  setOperand(access, at, address);
}

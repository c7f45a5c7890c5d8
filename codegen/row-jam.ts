// Alias scopes for the row jam's jammed loops (transform/row-jam.ts): under each `rowJamMark`,
// isl's AST holds the k loop whose body is the U rows' copies of the chain statement. Their
// accesses to the row's own element of the array the chain writes (x[r], its sum mapped there by
// DeLICM) get one scope, `rows`, and its reads of other elements of that array (x[k], finished
// before the block) another, `finished`, each noalias with the other: transform/row-jam.ts
// checked with isl that within one block those reads never touch an element a row touches.
// Where transform/row-jam.ts found the rows apart (rows differing modulo U never touch one
// element), each of the U unrolled copies gets a scope of its own, `row u`, noalias with the
// other rows': basic alias analysis cannot always tell the rows' elements apart by itself
// (cholesky's A[i][j0 + u], its first row addressed as A + (2000 i + 8 j0), the others as
// (A + 2000 i) + (8 j0 | u)). And every access of one copy to its row's element takes the one
// address the first of them computed, which LICM needs to see the load and the store as one
// location. LICM then keeps each row's sum in a register across k. The model's elements are
// memory's under the fast path's run-time check, so the scopes add no assumption of their own.
//
// The jammed loop carries `llvm.loop.unroll.count` (jamUnrollCount): LICM moves a loop's
// accesses to registers only up to 250 accesses in it (opt's `licm-mssa-max-acc-promotion`), and
// -O3 runs it after its runtime unrolling, which unrolled VLA cholesky's k loop by 8: 8 rows' 4
// accesses each, 8 times, 256, and the sums stayed in memory (0.44 s at N = 1500 against 0.16 s
// with them in registers, flat, where opt unrolled by 4).
//
// And each floating-point value a jammed row stores into its element passes through
// `llvm.arithmetic.fence` (a no-op for the value and the machine code): without it opt's SLP
// vectorizer packs the U rows' sums into one vector and, with constant row lengths, loads their
// terms a(r, k) with gathers whose addresses it builds anew for every k (forward substitution
// N = 2000, CPU time: 4.3 ms against clang -O3's 3.2 ms; fenced, U scalar chains: 1.1-1.2 ms).
import type { AstNodeTree } from 'isl-wasm';
import { functionType, getOrInsertFunction, IrBuilder, setOperand, typesEqual, type Instruction, type Module, type Value } from '../ir';
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
  /** Gives `access` (a load or store of the row's element in this copy) the address the copy's first such access took. */
  sameAddress(access: Instruction): void;
}

/**
 * The outermost loops below each row-jam mark of `ast` (the jammed k loops), each with whether
 * its body is the `factor` unrolled rows alone, in row order (statement calls 0 to factor - 1).
 */
function jammedLoops(ast: AstNodeTree, factor: number): Map<ForNode, boolean> {
  const out = new Map<ForNode, boolean>();
  visitMarks(ast, rowJamMark, (mark) =>
    visitLoops(mark.node, (loop) => {
      out.set(loop, loop.body.kind === 'block' && loop.body.children.length === factor && loop.body.children.every((c) => c.kind === 'user'));
      return false;
    }),
  );
  return out;
}

/** The pointer operand of a load or store, and its operand index. */
function addressOf(access: Instruction): { at: number; ptr: Value } | undefined {
  const at = access.opcode === 'load' ? 0 : access.opcode === 'store' ? 1 : -1;
  return at < 0 ? undefined : { at, ptr: access.operands[at]! };
}

/** A `sameAddress` for one copy: the first access's address, taken by later ones in its block. */
function addressSharer(): (access: Instruction) => void {
  let first: Value | undefined;
  return (access) => {
    const a = addressOf(access);
    if (!a) return;
    if (!first) {
      first = a.ptr;
      return;
    }
    // The first address dominates a later access of the same block (it was defined before the first access).
    const dominates = first.kind !== 'instruction' || first.parent === access.parent;
    if (a.ptr !== first && dominates && typesEqual(a.ptr.type, first.type)) setOperand(access, a.at, first);
  };
}

/**
 * How often opt may unroll a jammed k loop of `factor` rows: at most 32 row copies in the
 * unrolled body, about 4 accesses each, within LICM's 250 (above); a power of two.
 */
export function jamUnrollCount(factor: number): number {
  return Math.max(1, 2 ** Math.floor(Math.log2(32 / factor)));
}

/** What the fast path's code generation asks of the row jam. */
export interface JamCodegen {
  rowOf(statement: string, enclosing: readonly ForNode[]): JammedRow | undefined;
  /** Further loop-ID operands of an AST loop (the unroll count of a jammed loop). */
  loopProperties(loop: ForNode): string[];
}

/**
 * The row jam's scopes in the fast path generated from `ast` for `jammed`: `rowOf(statement,
 * enclosing)`, called once per statement the AST runs, gives a jammed copy of the chain its
 * scopes, undefined elsewhere (undefined: no row-jam mark in the AST, no scopes).
 */
export function jamScopes(ast: AstNodeTree, md: MetadataTable, domainName: string, jammed: RowJammed): JamCodegen | undefined {
  const loops = jammedLoops(ast, jammed.factor);
  if (loops.size === 0) return undefined;
  const U = jammed.factor;
  const perRow = jammed.rowsApart && [...loops.values()].some((copies) => copies);
  const names = ['finished', 'rows', ...(perRow ? Array.from({ length: U }, (_, u) => `row ${u}`) : [])];
  const [finished, rows, ...eachRow] = md.scopes(`${domainName} row jam`, names) as [string, string, ...string[]];
  const finishedReads = { reads: new Set(jammed.finishedReads), scopes: { own: finished, others: [rows, ...eachRow] } };
  const calls = new Map<ForNode, number>();
  const count = jamUnrollCount(U);
  const unroll = count > 1 ? md.node(() => `!{!"llvm.loop.unroll.count", i32 ${count}}`) : md.node(() => '!{!"llvm.loop.unroll.disable"}');
  return {
    loopProperties: (loop) => (loops.has(loop) ? [unroll] : []),
    rowOf: (statement, enclosing) => {
      const loop = statement === jammed.statement ? enclosing.find((l) => loops.has(l)) : undefined;
      if (!loop) return undefined;
      let scopes: ScopePair = { own: rows, others: [finished] };
      if (perRow && loops.get(loop)) {
        const u = (calls.get(loop) ?? 0) % U;
        calls.set(loop, u + 1);
        scopes = { own: eachRow[u]!, others: [finished, ...eachRow.filter((_, v) => v !== u)] };
      }
      return { scopes, finished: finishedReads, sameAddress: addressSharer() };
    },
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

// The product a packed operand's copy can compute once (the matmul path, transform/matmul.ts and
// codegen/packing.ts): a packed load whose only use is an fmul with a value the SCoP does not
// compute (gemm's `alpha * A[i][k]`, syr2k's `A[j][k] * alpha`). The copy statement then stores
// the product and the micro-kernel reads it instead of multiplying again: the same fmul (its
// operands in their order, its flags) of the same values, so results stay bit for bit. In gemm's
// micro-kernel that product cost a scalar multiply and a register broadcast per row of A and k
// (8 vmulsd and 8 broadcasts beside 24 FMAs), on the ports the FMAs need; read from the buffer,
// A's element is broadcast straight from memory.
import type { BasicBlock, Instruction } from '../ir';

/** The fmul to fold into the copy of `load` and the operand slot the load fills, or undefined. */
export interface FoldedProduct {
  readonly mul: Instruction;
  readonly slot: number;
}

/**
 * The fmul `load` feeds when that is its only use, in the same block, and its other operand is
 * not computed inside the SCoP (`region`, its blocks): an argument, a constant, a value from before it.
 */
export function foldedProduct(load: Instruction, region: ReadonlySet<BasicBlock>): FoldedProduct | undefined {
  if (load.uses.length !== 1) return undefined;
  const mul = load.uses[0]!.user;
  if (mul.kind !== 'instruction' || mul.opcode !== 'fmul' || mul.parent !== load.parent) return undefined;
  const slot = mul.operands.indexOf(load);
  const other = mul.operands[1 - slot]!;
  if (other.kind === 'instruction' && other.parent !== undefined && region.has(other.parent)) return undefined;
  return { mul, slot };
}

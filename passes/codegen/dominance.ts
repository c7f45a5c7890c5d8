// The guard between a SCoP's model and the IR it is generated into. A model names values of
// the IR as it was when the model was built (parameters, base pointers, start values, all as
// scalar evolution saw them). Versioning an earlier SCoP of the same function changes which
// definitions dominate what comes after it: a value defined in that SCoP's region no longer
// dominates anything past the region, since the fast path bypasses it; code after it sees
// the merged value instead. A later SCoP's model built before that still names the old
// definition. Code generated from it would not verify ("Instruction does not dominate all
// uses"), so before the new code is wired in, every value it uses from outside is checked to
// dominate the point where the new code starts.
import { type BasicBlock, type Instruction, type IrFunction, printInstruction } from '../../ir';
import { computeDominatorTree } from '../analysis/dominators';

/** The new code uses a value whose definition does not dominate it: the model is stale. */
export class StaleModelError extends Error {}

/**
 * Throws `StaleModelError` unless every instruction operand of `made` (new blocks, not yet
 * reachable) and of `moved` (instructions moved into `start`) that is defined outside `made`
 * is defined in a block dominating `start`, the block the new code will be entered from.
 */
export function checkOperandsDominate(fn: IrFunction, start: BasicBlock, made: readonly BasicBlock[], moved: readonly Instruction[]): void {
  const inMade = new Set(made);
  const tree = computeDominatorTree(fn);
  const check = (inst: Instruction): void => {
    for (const op of inst.operands) {
      if (op.kind !== 'instruction' || (op.parent !== undefined && inMade.has(op.parent))) continue;
      if (op.parent === undefined || !tree.dominates(op.parent, start)) {
        throw new StaleModelError(`the generated code would use ${printInstruction(op).trim()}, whose definition does not dominate the SCoP's entry`);
      }
    }
  };
  for (const block of made) for (const inst of block.instructions) check(inst);
  for (const inst of moved) check(inst);
}

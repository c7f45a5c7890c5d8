// The iteration number of a loop that contains a SCoP, read at the SCoP's entry.
//
// Delinearization makes the counter of such a loop a model parameter (`iter_<header>`, the
// recurrence {0,+,1}<L>), and parameters may hold recurrences of enclosing loops, e.g. the
// row offset `{0,+,n}<L>` of a VLA indexed by the outer counter. The run-time check sits
// inside those loops, so their header PHIs dominate it: a PHI whose closed form is
// {a,+,b}<L> (b a non-zero constant, no signed or unsigned wrap) gives the iteration number
// as (phi - a) / b, LLVM's SCEVExpander reuse of an existing induction variable.
import { type BasicBlock, type IrBuilder, constInt, intType, type Value } from '../ir';
import { type Scev, type ScevLoop, NoWrap } from '../analysis/scev';
import { containsRegion, iterationPhi } from '../analysis/outer-iteration';
import type { Loop } from '../analysis/loops';
import type { ScalarEvolution } from '../analysis/scalar-evolution';

const i128 = intType(128);

/**
 * Returns `iterationOf` for the run-time check's expander: for a loop containing `region`'s
 * blocks, its iteration number in i128 (undefined for other loops, or when no header PHI is a
 * usable recurrence). `exact` rebuilds the PHI's start value (invariant in the loop, so
 * defined before the check). Values are emitted through `b` once per loop.
 */
export function outerIterations(
  se: ScalarEvolution,
  b: IrBuilder,
  region: ReadonlySet<BasicBlock>,
  exact: (s: Scev) => Value,
): (loop: ScevLoop) => Value | undefined {
  const made = new Map<ScevLoop, Value | undefined>();
  return (scevLoop) => {
    if (made.has(scevLoop)) return made.get(scevLoop);
    const loop = scevLoop as Loop;
    const v = containsRegion(loop, region) ? fromHeaderPhi(se, b, loop, exact) : undefined;
    made.set(scevLoop, v);
    return v;
  };
}

function fromHeaderPhi(se: ScalarEvolution, b: IrBuilder, loop: Loop, exact: (s: Scev) => Value): Value | undefined {
  const best = iterationPhi(se, loop);
  if (!best) return undefined;
  const value = best.rec.flags & NoWrap.NSW ? b.sext(best.phi, i128) : b.zext(best.phi, i128);
  const distance = b.sub(value, exact(best.rec.operands[0]!));
  return best.step === 1n ? distance : b.binary('sdiv', distance, constInt(i128, best.step));
}

// The iteration number of a loop that contains a SCoP, read at the SCoP's entry.
//
// Delinearization makes the counter of such a loop a model parameter (`iter_<header>`, the
// recurrence {0,+,1}<L>), and parameters may hold recurrences of enclosing loops, e.g. the
// row offset `{0,+,n}<L>` of a VLA indexed by the outer counter. The run-time check sits
// inside those loops, so their header PHIs dominate it: a PHI whose closed form is
// {a,+,b}<L> (b a non-zero constant, no signed or unsigned wrap) gives the iteration number
// as (phi - a) / b, LLVM's SCEVExpander reuse of an existing induction variable.
import { type BasicBlock, type IrBuilder, constInt, intType, type Value } from '../ir';
import { type Scev, type ScevAddRec, type ScevLoop, ScevKind, NoWrap } from '../analysis/scev';
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

function containsRegion(loop: Loop, region: ReadonlySet<BasicBlock>): boolean {
  for (const block of region) if (!loop.containsBlock(block)) return false;
  return region.size > 0;
}

/** Lower is simpler to rebuild: a unit step needs no division, a constant start no expansion. */
function cost(rec: ScevAddRec): number {
  const step = rec.operands[1]!;
  return (step.kind === ScevKind.Constant && step.value === 1n ? 0 : 2) + (rec.operands[0]!.kind === ScevKind.Constant ? 0 : 1);
}

function fromHeaderPhi(se: ScalarEvolution, b: IrBuilder, loop: Loop, exact: (s: Scev) => Value): Value | undefined {
  let best: { phi: Value; rec: ScevAddRec; step: bigint } | undefined;
  for (const phi of loop.header.instructions) {
    if (phi.opcode !== 'phi') break;
    if (phi.type.kind !== 'int' || !se.isScevable(phi)) continue;
    const rec = se.getScev(phi);
    if (rec.kind !== ScevKind.AddRec || rec.loop !== loop || rec.operands.length !== 2) continue;
    const step = rec.operands[1]!;
    if (step.kind !== ScevKind.Constant || step.value === 0n) continue;
    // Without a no-wrap flag the PHI's value is the start plus the step times the iteration only modulo 2^bits.
    // With nuw only, the unsigned reading agrees with `exact`'s signed start only for a non-negative constant start and step.
    const start = rec.operands[0]!;
    const unsignedOk = rec.flags & NoWrap.NUW && step.value > 0n && start.kind === ScevKind.Constant && start.value >= 0n;
    if (!(rec.flags & NoWrap.NSW) && !unsignedOk) continue;
    if (!best || cost(rec) < cost(best.rec)) best = { phi, rec, step: step.value };
  }
  if (!best) return undefined;
  const value = best.rec.flags & NoWrap.NSW ? b.sext(best.phi, i128) : b.zext(best.phi, i128);
  const distance = b.sub(value, exact(best.rec.operands[0]!));
  return best.step === 1n ? distance : b.binary('sdiv', distance, constInt(i128, best.step));
}

// Which expressions the run-time check can compute at a SCoP's entry (its parameters'), and
// the header PHI that gives an enclosing loop's iteration number there.
//
// A parameter holding a recurrence `{a,+,b}<L>` of a loop around the SCoP is computed from one
// of L's header PHIs (codegen/outer-iteration.ts); a recurrence of any other loop, one of order
// two or more, or an expression scalar evolution could not compute, cannot be: the SCoP is not
// versioned ("a varying expression used as a parameter", codegen/scev-expander.ts's `exact`).
// The model asks `parametersExpandable` before isl reads it, so such a SCoP costs no model,
// check or AST (zlib's adler32_z: 0.26M isl operations for a SCoP refused in the end).
import type { BasicBlock, Instruction } from '../ir';
import type { Loop } from './loops';
import { type Scev, type ScevAddRec, type ScevLoop, ScevKind, NoWrap } from './scev';
import type { ScalarEvolution } from './scalar-evolution';

/** A header PHI of `loop` whose closed form `rec` = {start,+,step}<loop> gives the iteration number. */
export interface IterationPhi {
  readonly phi: Instruction;
  readonly rec: ScevAddRec;
  readonly step: bigint;
}

/** Lower is simpler to rebuild: a unit step needs no division, a constant start no expansion. */
function cost(rec: ScevAddRec): number {
  const step = rec.operands[1]!;
  return (step.kind === ScevKind.Constant && step.value === 1n ? 0 : 2) + (rec.operands[0]!.kind === ScevKind.Constant ? 0 : 1);
}

/**
 * The cheapest header PHI of `loop` whose recurrence has a non-zero constant step and wraps in
 * neither reading `exact` may give it (undefined when none).
 */
export function iterationPhi(se: ScalarEvolution, loop: Loop): IterationPhi | undefined {
  let best: IterationPhi | undefined;
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
  return best;
}

/** Whether `loop` holds every block of `region` (a loop around the SCoP). */
export function containsRegion(loop: Loop, region: ReadonlySet<BasicBlock>): boolean {
  for (const block of region) if (!loop.containsBlock(block)) return false;
  return region.size > 0;
}

/**
 * Whether the check can compute each of `expressions` at the entry of the SCoP made of
 * `region`, as far as recurrences go: false when one holds an expression scalar evolution could
 * not compute, a recurrence of order two or more, or one of a loop that is not around the
 * region or has no usable header PHI. (Values defined inside the SCoP are `exact`'s other
 * refusal, not decided here.)
 */
export function parametersExpandable(se: ScalarEvolution, region: ReadonlySet<BasicBlock>, expressions: readonly Scev[]): boolean {
  const usable = new Map<ScevLoop, boolean>();
  const loopUsable = (l: ScevLoop): boolean => {
    let u = usable.get(l);
    if (u === undefined) {
      const loop = l as Loop;
      u = containsRegion(loop, region) && iterationPhi(se, loop) !== undefined;
      usable.set(l, u);
    }
    return u;
  };
  const ok = (s: Scev): boolean => {
    switch (s.kind) {
      case ScevKind.Constant:
      case ScevKind.Unknown:
        return true;
      case ScevKind.Truncate:
      case ScevKind.ZeroExtend:
      case ScevKind.SignExtend:
        return ok(s.operand);
      case ScevKind.UDiv:
        return ok(s.lhs) && ok(s.rhs);
      case ScevKind.Add:
      case ScevKind.Mul:
      case ScevKind.SMax:
      case ScevKind.SMin:
      case ScevKind.UMax:
      case ScevKind.UMin:
        return s.operands.every(ok);
      case ScevKind.AddRec:
        return s.operands.length === 2 && loopUsable(s.loop) && s.operands.every(ok);
      default:
        return false;
    }
  };
  return expressions.every(ok);
}

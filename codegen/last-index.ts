// The last index where a condition held, as a maximum: `j = -1; for (i = 0; i < n; i++) if (c(i))
// j = i;` (TSVC's s331) carries `j = c ? i : j` around the loop, a recurrence opt-14's vectorizer
// does not recognize, so clang -O3 leaves the loop scalar. Where the index never decreases and j
// starts at or below its first value, j is never above the index, so `c ? i : j` is
// `smax(j, c ? i : INT_MIN)` in every iteration: the same value, now a maximum, which opt vectorizes
// (integers only: nothing is rounded).
import type { Loop, LoopInfo } from '../analysis/loops';
import { rangeOf } from '../analysis/ranges';
import type { ScalarEvolution } from '../analysis/scalar-evolution';
import { constantValue, NoWrap, ScevKind, type Scev } from '../analysis/scev';
import { buildMinMax, IrBuilder } from '../ir/builder';
import { incomingValueFor, phis } from '../ir/cfg';
import { eraseInstruction } from '../ir/edit';
import { constInt } from '../ir/nodes';
import { replaceAllUsesWith } from '../ir/uses';
import type { Instruction, Module, Value } from '../ir/types';

/** Whether `x` (an integer of `bits`) takes non-decreasing values over `loop`'s iterations, without wrapping, from a first value at least `init`'s. */
function risesFrom(x: Scev, init: Value, loop: Loop, se: ScalarEvolution): boolean {
  if (x.kind !== ScevKind.AddRec || x.loop !== loop || x.operands.length !== 2) return false;
  const [start, stepScev] = x.operands as [Scev, Scev];
  const step = constantValue(stepScev);
  if (step === undefined || step < 0n) return false;
  const facts = se.entryFacts(loop);
  if (rangeOf(se.getScev(init), facts).hi > rangeOf(start, facts).lo) return false;
  if ((x.flags & NoWrap.NSW) !== 0) return true;
  // Without the no-wrap fact, the last value must fit: bounded by the largest first value and
  // trip count (`i < n` with an int n: at most 2^31 - 2 back edges).
  const taken = se.backedgeTakenCount(loop);
  if (taken.kind === ScevKind.CouldNotCompute) return false;
  const most = rangeOf(start, facts).hi + step * rangeOf(taken, facts).hi;
  return rangeOf(taken, facts).lo >= 0n && most <= (1n << BigInt(x.bits - 1)) - 1n;
}

/** The select `loop`'s header phi `j` gets back from the latch when it is `c ? x : j` or `c ? j : x` with x rising from j's first value; with x and which side it is on. */
function lastIndexSelect(j: Instruction, loop: Loop, se: ScalarEvolution, li: LoopInfo): { select: Instruction; x: Value; xIfTrue: boolean } | undefined {
  if (j.type.kind !== 'int' || !loop.latch || !loop.preheader || j.operands.length !== 2) return undefined;
  const back = incomingValueFor(j, loop.latch);
  const init = incomingValueFor(j, loop.preheader);
  if (!back || !init || back.kind !== 'instruction' || back.opcode !== 'select' || !back.parent || li.loopFor(back.parent) !== loop) return undefined;
  const [, t, f] = back.operands as [Value, Value, Value];
  if ((f === j) === (t === j)) return undefined;
  const xIfTrue = f === j;
  const x = xIfTrue ? t : f;
  if (!se.isScevable(x) || !risesFrom(se.getScev(x), init, loop, se)) return undefined;
  return { select: back, x, xIfTrue };
}

/** Rewrites every last-index recurrence in `loops` as a maximum; the number rewritten. */
export function lastIndexAsMax(m: Module, li: LoopInfo, se: ScalarEvolution): number {
  let rewritten = 0;
  for (const loop of li.all) {
    for (const j of phis(loop.header)) {
      const found = lastIndexSelect(j, loop, se, li);
      if (!found) continue;
      const { select, x, xIfTrue } = found;
      if (x.type.kind !== 'int') continue;
      const lowest = constInt(x.type, -(1n << BigInt(x.type.bits - 1)));
      const b = new IrBuilder().positionBefore(select);
      const candidate = b.select(select.operands[0]!, xIfTrue ? x : lowest, xIfTrue ? lowest : x);
      const max = buildMinMax(b, m, 'smax', j, candidate);
      replaceAllUsesWith(select, max);
      eraseInstruction(select);
      rewritten++;
    }
  }
  return rewritten;
}

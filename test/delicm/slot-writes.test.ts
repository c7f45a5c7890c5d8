// A scalar DeLICM leaves in its stack slot: the fast path stores the slot in every instance of
// the writing statement, dead instances (overwritten before any read) included, so DeLICM's model
// keeps those writes whole and a schedule orders them all. Trimmed to their live instances, isl's
// tiled schedule of a model mapping only the interchanged nest's scalars ran the first nest's
// `w = A[i][j]` for every j ahead of the j loop that reads it, and the program printed wrong
// values (PolyBench ludcmp's VLA build at MEDIUM: x[0] 5.01 instead of 4.00).
import type { ScopAccess, ScopModel } from '../../polyhedral/model';
import { carriedByDepth, delicmKernel } from './support';

/** Each access of `model` to a scalar left in its slot, with the same access of `original`. */
function slotAccesses(original: ScopModel, model: ScopModel): { access: ScopAccess; before: ScopAccess }[] {
  return model.statements.flatMap((s) => {
    const o = original.statements.find((t) => t.name === s.name)!;
    return s.accesses.filter((a) => a.array.kind !== 'array').map((access) => ({
      access,
      before: o.accesses.find((b) => b.array === access.array && b.kind === access.kind && b.scalar?.value === access.scalar?.value)!,
    }));
  });
}

test("DeLICM's model (every scalar eligible: main's path) keeps a slot's writes whole: covariance's exit PHI is written in every iteration", () => {
  // main's SCoP that sums each column into a PHI the code after it reads: the PHI escapes, so it
  // is never mapped, and only its last iteration's write is live.
  const k = delicmKernel('covariance', { function: 'main' });
  try {
    const changed = k.results.filter((r) => r.model !== r.original);
    expect(changed.length).toBeGreaterThan(0);
    for (const r of changed) {
      for (const { access, before } of slotAccesses(r.original, r.model)) expect([access.array.name, access.relation.isEqual(before.relation)]).toEqual([access.array.name, true]);
    }
    // The loop writing the escaping PHI carries its WAW: no schedule may run an earlier write last.
    expect(changed.some((r) => (carriedByDepth(r.model)[1] ?? []).includes('WAW (scalar)'))).toBe(true);
  } finally {
    k.dispose();
  }
});

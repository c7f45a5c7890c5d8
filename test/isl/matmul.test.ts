// Dependences and a schedule for the 3-loop matrix multiplication
//
//   for (i = 0; i < N; i++)
//     for (j = 0; j < N; j++) {
//   S:  C[i][j] = 0;
//       for (k = 0; k < N; k++)
//   T:    C[i][j] += A[i][k] * B[k][j];
//     }
import { Ctx, ScheduleConstraints, ScheduleNodeType, UnionAccessInfo, type UnionMap } from 'isl-wasm';

describe('matrix multiplication with isl-wasm', () => {
  let ctx: Ctx;
  beforeAll(() => {
    ctx = new Ctx({ scheduleOuterCoincidence: false, scheduleMaximizeBandDepth: false, scheduleSerializeSccs: false, scheduleWholeComponent: false });
  });
  afterAll(() => ctx.dispose());

  // { S[i, j]; T[i, j, k] }
  const domain = () => ctx.unionSet('[N] -> { S[i, j] : 0 <= i, j < N; T[i, j, k] : 0 <= i, j, k < N }');
  // { Stmt[…] -> Array[…] }
  const writes = () => ctx.unionMap('[N] -> { S[i, j] -> C[i, j]; T[i, j, k] -> C[i, j] }').intersectDomainUnionSet(domain());
  const reads = () => ctx.unionMap('[N] -> { T[i, j, k] -> C[i, j]; T[i, j, k] -> A[i, k]; T[i, j, k] -> B[k, j] }').intersectDomainUnionSet(domain());
  // { Stmt[…] -> [time] }: the original execution order
  const original = () => ctx.unionMap('{ S[i, j] -> [i, j, 0, 0]; T[i, j, k] -> [i, j, 1, k] }');

  /** { Source[…] -> Sink[…] }: read-after-write, write-after-write and write-after-read */
  function dependences(): { flow: UnionMap; output: UnionMap; anti: UnionMap } {
    return {
      flow: UnionAccessInfo.fromSink(reads()).setMustSource(writes()).setScheduleMap(original()).computeFlow().getMustDependence(),
      output: UnionAccessInfo.fromSink(writes()).setMustSource(writes()).setScheduleMap(original()).computeFlow().getMustDependence(),
      anti: UnionAccessInfo.fromSink(writes()).setMaySource(reads()).setScheduleMap(original()).computeFlow().getMayDependence(),
    };
  }

  test('the flow dependences are S → T(k = 0) and T(k) → T(k + 1)', () => {
    ctx.scope(() => {
      const { flow, output, anti } = dependences();
      const expected = ctx.unionMap(
        '[N] -> { S[i, j] -> T[i, j, 0] : 0 <= i, j < N; T[i, j, k] -> T[i, j, k + 1] : 0 <= i, j < N and 0 <= k < N - 1 }');
      expect(flow.isEqual(expected)).toBe(true);
      expect(output.isEqual(expected)).toBe(true);
      expect(anti.isEqual(ctx.unionMap('[N] -> { T[i, j, k] -> T[i, j, k2] : 0 <= i, j < N and 0 <= k < k2 < N }'))).toBe(true);
      expect(flow.toStr()).toBe(
        '[N] -> { T[i, j, k] -> T[i\' = i, j\' = j, k\' = 1 + k] : 0 <= i < N and 0 <= j < N and 0 <= k <= -2 + N; ' +
          'S[i, j] -> T[i\' = i, j\' = j, k = 0] : 0 <= i < N and 0 <= j < N }');
    });
  });

  test('the computed schedule is one permutable band with i and j parallel', () => {
    ctx.scope(() => {
      const { flow, output, anti } = dependences();
      const all = flow.union(output).union(anti);
      const schedule = ScheduleConstraints.onDomain(domain()).setValidity(all).setProximity(all).setCoincidence(all).computeSchedule();
      const band = schedule.getRoot().child(0);
      expect(band.getType()).toBe(ScheduleNodeType.band);
      expect(band.bandNMember()).toBe(3);
      expect(band.bandGetPermutable()).toBe(true);
      expect([0, 1, 2].map((i) => band.bandMemberGetCoincident(i))).toEqual([true, true, false]);
      expect(band.bandGetPartialSchedule().toStr()).toBe(
        '[N] -> [{ T[i, j, k] -> [(i)]; S[i, j] -> [(i)] }, { T[i, j, k] -> [(j)]; S[i, j] -> [(j)] }, { T[i, j, k] -> [(k)]; S[i, j] -> [(0)] }]');
      expect(band.child(0).getType()).toBe(ScheduleNodeType.sequence);
      expect(schedule.getMap().isEqual(ctx.unionMap('[N] -> { S[i, j] -> [i, j, 0, 0]; T[i, j, k] -> [i, j, k, 1] }'))).toBe(true);

      // Every dependence goes forward in the new schedule: { [time delta] } is lexicographically positive.
      const sched = schedule.getMap();
      const deltas = all.applyDomain(sched).applyRange(sched).deltas();
      const positive = ctx.unionSet('{ [a, b, c, d] : a > 0 or (a = 0 and b > 0) or (a = b = 0 and c > 0) or (a = b = c = 0 and d > 0) }');
      expect(deltas.isSubset(positive)).toBe(true);
    });
  });

  test('scheduler options reach isl', () => {
    const other = new Ctx({ scheduleOuterCoincidence: true, scheduleMaximizeBandDepth: true, scheduleSerializeSccs: true, scheduleWholeComponent: true });
    try {
      const options = other.getOptions();
      expect([options.scheduleOuterCoincidence, options.scheduleMaximizeBandDepth, options.scheduleSerializeSccs, options.scheduleWholeComponent])
        .toEqual([true, true, true, true]);
      // With serialize_sccs, S and T are split before the k loop.
      const d = other.unionSet('[N] -> { S[i, j] : 0 <= i, j < N; T[i, j, k] : 0 <= i, j, k < N }');
      const dep = other.unionMap('[N] -> { S[i, j] -> T[i, j, 0] : 0 <= i, j < N; T[i, j, k] -> T[i, j, k + 1] : 0 <= i, j < N and 0 <= k < N - 1 }');
      const s = ScheduleConstraints.onDomain(d).setValidity(dep).setProximity(dep).computeSchedule();
      expect(s.getMap().isEmpty()).toBe(false);
    } finally {
      other.dispose();
    }
    expect(ctx.getOptions().scheduleSerializeSccs).toBe(false);
  });
});

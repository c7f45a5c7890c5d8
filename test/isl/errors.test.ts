// isl errors become thrown errors carrying isl's message; the context stays usable.
import { Ctx, IslError, IslErrorCode, IslQuotaError, ScheduleConstraints } from 'isl-wasm';

describe('isl-wasm errors', () => {
  let ctx: Ctx;
  beforeEach(() => {
    ctx = new Ctx();
  });
  afterEach(() => ctx.dispose());

  test('a parse error throws with isl\'s message and the context stays usable', () => {
    let error: unknown;
    try {
      ctx.set('{ [i] : i >= }');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IslError);
    const islError = error as IslError;
    expect(islError.islFunction).toBe('isl_set_read_from_str');
    expect(islError.message).toBe('isl_set_read_from_str: syntax error');
    expect(islError.code).toBe(IslErrorCode.invalid);
    expect(ctx.set('{ [i] : 0 <= i < 3 }').toStr()).toBe('{ [i] : 0 <= i <= 2 }');
  });

  test('the operations quota stops an expensive computation and is lifted afterwards', () => {
    // Matrix multiplication: { S[i, j]; T[i, j, k] } with its flow dependences.
    const domain = ctx.unionSet('[N] -> { S[i, j] : 0 <= i, j < N; T[i, j, k] : 0 <= i, j, k < N }');
    const deps = ctx.unionMap('[N] -> { S[i, j] -> T[i, j, 0] : 0 <= i, j < N; T[i, j, k] -> T[i, j, k + 1] : 0 <= i, j < N and 0 <= k < N - 1 }');
    const constraints = ScheduleConstraints.onDomain(domain).setValidity(deps).setProximity(deps);
    let error: unknown;
    try {
      ctx.withMaxOperations(200, () => constraints.computeSchedule());
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IslQuotaError);
    const quota = error as IslQuotaError;
    expect(quota.message).toBe('isl_schedule_constraints_compute_schedule: maximal number of operations exceeded');
    expect(quota.code).toBe(IslErrorCode.quota);
    expect(ctx.maxOperations).toBe(0);
    // The context is usable again, and a generous quota lets the same computation through.
    const expected = ctx.unionMap('[N] -> { S[i, j] -> [i, j, 0, 0]; T[i, j, k] -> [i, j, k, 1] }');
    expect(constraints.computeSchedule().getMap().isEqual(expected)).toBe(true);
    expect(ctx.withMaxOperations(10_000_000, () => constraints.computeSchedule()).getMap().isEqual(expected)).toBe(true);
  });

  test('an error inside a scope frees the scope and leaves the context usable', () => {
    expect(() =>
      ctx.scope(() => {
        ctx.set('{ [i] : 0 <= i }');
        return ctx.map('{ [i] -> }');
      }),
    ).toThrow(IslError);
    expect(ctx.map('{ [i] -> [i + 1] }').reverse().toStr()).toBe('{ [i0] -> [i = -1 + i0] }');
  });
});

// Nested operations quotas compose: an inner withMaxOperations can neither reset nor
// extend the enclosing quota, and what it spends is charged to the enclosing one. And the
// quota counts the big-integer work isl itself does not count.
import { Ctx, IslQuotaError, ScheduleConstraints, chargeIslAllocations } from 'isl-wasm';

describe('isl-wasm operations quotas', () => {
  let ctx: Ctx;
  beforeEach(() => {
    ctx = new Ctx();
    // The first computation in a context also fills isl's caches (ids, blocks) and costs a
    // little more; the counts below are of a warm context.
    schedule();
  });
  afterEach(() => ctx.dispose());

  /** A schedule computation of matrix multiplication: a few thousand counted operations. */
  function schedule(): void {
    ctx.scope(() => {
      const domain = ctx.unionSet('[N] -> { S[i, j] : 0 <= i, j < N; T[i, j, k] : 0 <= i, j, k < N }');
      const deps = ctx.unionMap('[N] -> { S[i, j] -> T[i, j, 0] : 0 <= i, j < N; T[i, j, k] -> T[i, j, k + 1] : 0 <= i, j < N and 0 <= k < N - 1 }');
      ScheduleConstraints.onDomain(domain).setValidity(deps).setProximity(deps).computeSchedule();
    });
  }

  /** Operations one schedule() costs, measured under no quota. */
  function cost(): number {
    return ctx.withMaxOperations(0, () => {
      schedule();
      return ctx.operations;
    });
  }

  const near = (a: number, b: number): boolean => Math.abs(a - b) <= b / 100;

  test('operations counts what isl did inside the quota', () => {
    const one = cost();
    expect(one).toBeGreaterThan(100);
    // The same work costs the same, up to isl's block cache (a hit is not an allocation).
    expect(near(cost(), one)).toBe(true);
    const two = ctx.withMaxOperations(0, () => {
      schedule();
      schedule();
      return ctx.operations;
    });
    expect(near(two, 2 * one)).toBe(true);
  });

  test('a nested quota does not reset the enclosing count', () => {
    const one = cost();
    // Outer: room for 1.5 computations. Each inner call alone would allow two; without
    // composition the second inner call would reset the count and succeed.
    const outer = Math.floor(1.5 * one);
    let inner = 0;
    expect(() =>
      ctx.withMaxOperations(outer, () => {
        for (let i = 0; i < 2; i++) {
          ctx.withMaxOperations(2 * one, schedule);
          inner++;
        }
      }),
    ).toThrow(IslQuotaError);
    expect(inner).toBe(1);
  });

  test('a nested quota cannot extend the enclosing one', () => {
    const one = cost();
    expect(() => ctx.withMaxOperations(Math.floor(one / 2), () => ctx.withMaxOperations(10 * one, schedule))).toThrow(IslQuotaError);
    // And "no quota of its own" (0) inside a quota inherits the enclosing limit.
    expect(() => ctx.withMaxOperations(Math.floor(one / 2), () => ctx.withMaxOperations(0, schedule))).toThrow(IslQuotaError);
  });

  test('the inner limit is the smaller of its own and what remains', () => {
    const one = cost();
    // The inner quota is the tighter one: it runs out, the outer goes on with what remains.
    const spent = ctx.withMaxOperations(10 * one, () => {
      expect(() => ctx.withMaxOperations(Math.floor(one / 2), schedule)).toThrow(IslQuotaError);
      const afterInner = ctx.operations;
      // The failed inner call was charged: exactly its limit.
      expect(afterInner).toBe(Math.floor(one / 2));
      schedule();
      return ctx.operations;
    });
    expect(near(spent, Math.floor(one / 2) + one)).toBe(true);
    // After the outermost quota: no limit, count restarted.
    expect(ctx.maxOperations).toBe(0);
    expect(ctx.operations).toBe(0);
  });

  test('after an inner quota error the enclosing quota is back in force', () => {
    const one = cost();
    expect(() =>
      ctx.withMaxOperations(one + 9, () => {
        expect(() => ctx.withMaxOperations(10, schedule)).toThrow(IslQuotaError);
        // 10 spent; one more computation does not fit in the remaining `one - 1` operations.
        schedule();
      }),
    ).toThrow(IslQuotaError);
  });

  describe('allocations isl does not count', () => {
    afterEach(() => chargeIslAllocations(4));

    /** Operations spent on `work` with every `n` uncounted allocations charged as one (0: none). */
    function charged(n: number, work: () => void): number {
      chargeIslAllocations(n);
      return ctx.withMaxOperations(0, () => {
        work();
        return ctx.operations;
      });
    }

    // detect-unsigned's accessed elements, in[(i + k) mod 2^32] with a 4-times unrolled k:
    // isl's lexmin does its work in big-integer arithmetic, which allocates without counting.
    const wrapping = '[p0, p1, p2] -> { A[o0] : 0 <= p0 < p1 < 2147483648 and 0 <= o0 <= 4294967295 and ' +
      'exists (e0, e1: e0 >= 0 and 4e0 <= -4 + p2 and -p1 + o0 - 4e0 < 4294967296e1 <= -p0 + o0 - 4e0) }';
    const lexmin = (): void => ctx.scope(() => void ctx.set(wrapping).lexminPwMultiAff());

    test('are charged to the quota, so big-integer work counts', () => {
      const isls = charged(0, lexmin);
      const ours = charged(4, lexmin);
      // isl counts ~14,000 operations; the allocations it does not count add ~110,000.
      expect(ours).toBeGreaterThan(5 * isls);
      expect(() => ctx.withMaxOperations(2 * isls, lexmin)).toThrow(IslQuotaError);
    });

    test('cost ordinary work little', () => {
      expect(charged(4, schedule)).toBeLessThan(1.5 * charged(0, schedule));
    });
  });
});

// The per-SCoP isl budget (polyhedral/budget.ts): steps spend from one allowance, across
// isl contexts and nested runs, and the step that ran it out is named.
import { Ctx, IslQuotaError, ScheduleConstraints } from 'isl-wasm';
import { ScopBudget } from '../../polyhedral/budget';

describe('ScopBudget', () => {
  let a: Ctx;
  let b: Ctx;
  beforeEach(() => {
    a = new Ctx();
    b = new Ctx();
    // Warm both contexts' caches so that the same work costs the same.
    work(a);
    work(b);
  });
  afterEach(() => {
    a.dispose();
    b.dispose();
  });

  /** Matrix multiplication's schedule: some thousands of operations in `ctx`. */
  function work(ctx: Ctx): void {
    ctx.scope(() => {
      const domain = ctx.unionSet('[N] -> { S[i, j] : 0 <= i, j < N; T[i, j, k] : 0 <= i, j, k < N }');
      const deps = ctx.unionMap('[N] -> { S[i, j] -> T[i, j, 0] : 0 <= i, j < N; T[i, j, k] -> T[i, j, k + 1] : 0 <= i, j < N and 0 <= k < N - 1 }');
      ScheduleConstraints.onDomain(domain).setValidity(deps).setProximity(deps).computeSchedule();
    });
  }

  function cost(ctx: Ctx): number {
    return ctx.withMaxOperations(0, () => {
      work(ctx);
      return ctx.operations;
    });
  }

  const near = (x: number, y: number): boolean => Math.abs(x - y) <= y / 50;

  test('each step is charged what it spent itself, nested runs included', () => {
    const one = cost(a);
    const budget = new ScopBudget(0);
    budget.run(a, 'model', 0, () => {
      work(a);
      budget.run(a, 'dependences', 0, () => work(a));
      budget.run(a, 'dependences', 0, () => work(a));
    });
    const by = budget.bySteps();
    expect(near(by.model!, one)).toBe(true);
    expect(near(by.dependences!, 2 * one)).toBe(true);
    expect(budget.spent).toBe(by.model! + by.dependences!);
    expect(budget.exhaustedBy).toBeUndefined();
  });

  test('later steps get what earlier steps left, and the step that runs out is named', () => {
    const one = cost(a);
    const budget = new ScopBudget(Math.floor(2.5 * one));
    budget.run(a, 'model', 0, () => work(a));
    // In another context: the budget is the SCoP's, not a context's.
    budget.run(b, 'delicm', 0, () => work(b));
    expect(budget.exhaustedBy).toBeUndefined();
    // Half a computation is left; the step's own limit (10x) does not extend it.
    expect(() => budget.run(a, 'check and AST', 10 * one, () => work(a))).toThrow(IslQuotaError);
    expect(budget.exhaustedBy).toBe('check and AST');
    expect(budget.spent).toBeLessThanOrEqual(budget.limit);
    expect(budget.reason()).toMatch(/isl budget of \d+ operations \(--scop-max-operations\) ran out in check and AST \(spent: model \d+, delicm \d+, check and AST \d+\)/);
  });

  test('a step\'s own, smaller limit is not the budget running out', () => {
    const one = cost(a);
    const budget = new ScopBudget(10 * one);
    expect(() => budget.run(a, 'delicm', Math.floor(one / 2), () => work(a))).toThrow(IslQuotaError);
    expect(budget.exhaustedBy).toBeUndefined();
    // What the failed step spent is charged all the same.
    expect(near(budget.spent, Math.floor(one / 2))).toBe(true);
  });

  test('a run nested in another context\'s run sees what the outer one has spent so far', () => {
    const one = cost(a);
    const budget = new ScopBudget(Math.floor(1.5 * one));
    expect(() =>
      budget.run(a, 'model', 0, () => {
        work(a);
        // The outer run has spent `one` in `a` and not been charged yet: half a computation remains.
        budget.run(b, 'delinearization', 0, () => work(b));
      }),
    ).toThrow(IslQuotaError);
    expect(budget.exhaustedBy).toBe('delinearization');
  });

  test('work charged after the fact can use the budget up', () => {
    const budget = new ScopBudget(1000);
    budget.charge('delinearization', 999);
    expect(budget.exhaustedBy).toBeUndefined();
    budget.charge('delinearization', 1);
    expect(budget.exhaustedBy).toBe('delinearization');
    expect(budget.remaining).toBe(0);
    // A used-up budget stops the next step at its first operations.
    expect(() => budget.run(a, 'model', 0, () => work(a))).toThrow(IslQuotaError);
  });
});

// Ownership: scopes free what they made, a freed object fails loudly, and
// 100,000 isl operations leave the wasm heap where it was.
import { Ctx, IslUseAfterFreeError, islHeapInUse, type Set } from 'isl-wasm';

describe('isl-wasm object lifetimes', () => {
  let ctx: Ctx;
  beforeEach(() => {
    ctx = new Ctx();
  });
  afterEach(() => ctx.dispose());

  test('a disposed object throws instead of touching freed memory', () => {
    const s = ctx.set('{ [i] : 0 <= i < 10 }');
    s.dispose();
    expect(s.disposed).toBe(true);
    expect(() => s.isEmpty()).toThrow(IslUseAfterFreeError);
    expect(() => ctx.set('{ [i] }').intersect(s)).toThrow(IslUseAfterFreeError);
    expect(() => s.dispose()).not.toThrow();
  });

  test('a scope frees everything made inside except what it returns', () => {
    let inner: Set | undefined;
    const kept = ctx.scope(() => {
      inner = ctx.set('{ [i] : 0 <= i < 10 }');
      return inner.intersect(ctx.set('{ [i] : i >= 5 }'));
    });
    expect(inner?.disposed).toBe(true);
    expect(() => inner?.toStr()).toThrow(IslUseAfterFreeError);
    expect(kept.toStr()).toBe('{ [i] : 5 <= i <= 9 }');
  });

  test('keep() lets an object outlive its scope; ctx.dispose() frees it', () => {
    const outlives = ctx.scope(() => {
      const s = ctx.set('{ [i] : 0 <= i < 4 }').keep();
      ctx.set('{ [i] : i < 0 }');
      return [s.toStr()];
    });
    expect(outlives).toEqual(['{ [i] : 0 <= i <= 3 }']);
  });

  test('methods never consume their receiver or arguments', () => {
    const a = ctx.set('{ [i] : 0 <= i < 10 }');
    const b = ctx.set('{ [i] : 5 <= i < 20 }');
    a.union(b);
    a.subtract(b);
    expect(a.toStr()).toBe('{ [i] : 0 <= i <= 9 }');
    expect(b.toStr()).toBe('{ [i] : 5 <= i <= 19 }');
  });

  test('objects of another context are refused', () => {
    const other = new Ctx();
    try {
      const s = other.set('{ [i] }');
      expect(() => ctx.set('{ [i] }').intersect(s)).toThrow(/another Ctx/);
    } finally {
      other.dispose();
    }
    const s = ctx.set('{ [i] }');
    const third = new Ctx();
    third.dispose();
    expect(() => third.set('{ [i] }')).toThrow(IslUseAfterFreeError);
    expect(s.isEmpty()).toBe(false);
  });

  test('100,000 operations keep the wasm heap bounded', () => {
    // [n] -> { [i, j] }
    const domain = ctx.set('[n] -> { [i, j] : 0 <= i < n and 0 <= j <= i }');
    const cuts = Array.from({ length: 17 }, (_, k) => ctx.set(`[n] -> { [i, j] : i + j >= ${k} }`));
    /** Five isl operations. */
    const step = (k: number): void => {
      const part = domain.intersect(cuts[k % 17]);
      const simple = part.coalesce();
      if (simple.isEmpty()) throw new Error('unexpected empty set');
      part.union(simple).params();
    };
    // Warm isl's caches (e.g. hashed names) before the first measurement.
    ctx.scope(() => { for (let k = 0; k < 200; k++) step(k); });
    const before = islHeapInUse();
    let operations = 0;
    for (let round = 0; round < 200; round++) {
      ctx.scope(() => {
        for (let k = 0; k < 100; k++) {
          step(k);
          operations += 5;
        }
      });
    }
    const after = islHeapInUse();
    expect(operations).toBe(100_000);
    expect(after - before).toBeLessThan(16 * 1024);

    // The measurement itself can see a leak: the same work without a scope grows the heap.
    const leaking = islHeapInUse();
    for (let k = 0; k < 200; k++) step(k);
    expect(islHeapInUse() - leaking).toBeGreaterThan(64 * 1024);
  });
});

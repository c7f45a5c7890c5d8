// The scalar-evolution algebra on its own: canonical forms, folding, printing,
// and the polynomial expansion delinearization reads.
import { ScevContext, ScevKind, NoWrap, printScev, type ScevLoop, type Scev } from '../../analysis/scev';
import { toPolynomial, toPolynomialThroughCasts, printPolynomial, counterCoefficients, polynomialKey, isAffinePolynomial } from '../../analysis/polynomial';

/** Two nested loops, outer `%i` around inner `%j`, and values defined outside both (`n`, `m`) or in `%j` (`x`). */
function setting() {
  const outer: ScevLoop = { id: 0, depth: 1, headerName: '%i', contains: (o) => o === outer || o === inner };
  const inner: ScevLoop = { id: 1, depth: 2, headerName: '%j', contains: (o) => o === inner };
  const defs = { n: {}, m: {}, x: {} };
  const ctx = new ScevContext({ loopOf: (v) => (v === defs.x ? inner : undefined) });
  const n = ctx.unknown(defs.n, '%n', 64, 0);
  const m = ctx.unknown(defs.m, '%m', 64, 1);
  const x = ctx.unknown(defs.x, '%x', 64, 2);
  const c = (v: number): Scev => ctx.constant(v, 64);
  return { ctx, outer, inner, n, m, x, c };
}

describe('scalar-evolution algebra', () => {
  test('equal sums are the same object whatever the operand order', () => {
    const { ctx, n, m, c } = setting();
    expect(ctx.add([n, c(3), m])).toBe(ctx.add([m, n, c(3)]));
    expect(ctx.add([ctx.add([n, c(1)]), c(2)])).toBe(ctx.add([c(3), n]));
    expect(printScev(ctx.add([m, c(-1), n]))).toBe('(-1 + %n + %m)');
  });

  test('like terms merge and cancel', () => {
    const { ctx, n, c } = setting();
    expect(printScev(ctx.add([ctx.mul([c(3), n]), ctx.mul([n, c(5)])]))).toBe('(8 * %n)');
    expect(ctx.minus(ctx.add([n, c(4)]), n)).toBe(c(4));
    expect(ctx.mul([n, c(0)])).toBe(c(0));
  });

  test('a constant distributes over a sum, as in LLVM', () => {
    const { ctx, n, m, c } = setting();
    expect(printScev(ctx.mul([c(8), ctx.add([n, m])]))).toBe('((8 * %n) + (8 * %m))');
  });

  test('loop-invariant terms fold into the innermost recurrence', () => {
    const { ctx, outer, inner, n, c } = setting();
    const i = ctx.addRec([c(0), n], outer, NoWrap.NSW); // i * n
    const j = ctx.addRec([c(0), c(1)], inner, NoWrap.NSW | NoWrap.NUW);
    const sum = ctx.add([i, j, c(2)]);
    expect(sum.kind).toBe(ScevKind.AddRec);
    expect(printScev(sum)).toBe('{{2,+,%n}<%i>,+,1}<%j>');
    // 8 * (i*n + j): the gemm subscript A[i*nk + k] in bytes.
    expect(printScev(ctx.mul([c(8), ctx.add([i, j])]))).toBe('{{0,+,(8 * %n)}<%i>,+,8}<%j>');
  });

  test('a value defined in the inner loop is not folded into its recurrence', () => {
    const { ctx, inner, x, c } = setting();
    const j = ctx.addRec([c(0), c(1)], inner);
    expect(printScev(ctx.add([j, x]))).toBe('({0,+,1}<%j> + %x)');
    expect(ctx.isLoopInvariant(x, inner)).toBe(false);
  });

  test('recurrences of the same loop add operand-wise; a zero step vanishes', () => {
    const { ctx, inner, n, c } = setting();
    const a = ctx.addRec([c(1), c(2)], inner);
    const b = ctx.addRec([n, c(-2)], inner);
    expect(ctx.add([a, b])).toBe(ctx.add([n, c(1)]));
  });

  test('extensions move inside recurrences that do not wrap', () => {
    const { ctx, inner } = setting();
    const i32 = (v: number): Scev => ctx.constant(v, 32);
    const rec = ctx.addRec([i32(0), i32(1)], inner, NoWrap.NSW);
    expect(printScev(ctx.signExtend(rec, 64))).toBe('{0,+,1}<nsw><%j>');
    const wrapping = ctx.addRec([i32(0), i32(1)], inner);
    expect(printScev(ctx.signExtend(wrapping, 64))).toBe('(sext i32 {0,+,1}<%j> to i64)');
    expect(ctx.truncate(ctx.signExtend(wrapping, 64), 32)).toBe(wrapping);
    expect(ctx.constant(-1, 32) === ctx.constant(0xffffffff, 32)).toBe(true);
    expect(printScev(ctx.zeroExtend(i32(-1), 64))).toBe('4294967295');
  });

  test('smax of expressions a constant apart is decided statically', () => {
    const { ctx, n, c } = setting();
    expect(ctx.smax(n, ctx.add([n, c(1)]))).toBe(ctx.add([n, c(1)]));
    expect(printScev(ctx.smax(c(0), n))).toBe('(0 smax %n)');
  });

  test('evaluating a recurrence after its trip count (exit values)', () => {
    const { ctx, inner, n, c } = setting();
    const rec = ctx.addRec([c(4), c(4)], inner);
    expect(printScev(ctx.atIteration(rec, inner, ctx.add([n, c(-1)])))).toBe('(4 * %n)');
  });
});

describe('polynomial expansion (for delinearization)', () => {
  test('a linearized 3-d subscript expands into products of parameters and counters', () => {
    const { ctx, outer, inner, n, m, c } = setting();
    // 8 * (i*n*m + j*m + 5): A[i][j][5] in an [*][n][m] array of doubles.
    const i = ctx.addRec([c(0), ctx.mul([n, m])], outer);
    const j = ctx.addRec([c(0), m], inner);
    const offset = ctx.mul([c(8), ctx.add([i, j, c(5)])]);
    const p = toPolynomial(offset);
    expect(printPolynomial(p)).toBe('8 * %n * %m * i%i + 8 * %m * i%j + 40');
    expect(isAffinePolynomial(p)).toBe(false);
    const terms = counterCoefficients(p);
    expect(terms.get(outer)!.map((t) => `${t.coefficient}:${t.factors.length}`)).toEqual(['8:2']);
    expect(terms.get(inner)!.map((t) => `${t.coefficient}:${t.factors.length}`)).toEqual(['8:1']);
  });

  test('equal values expand to equal keys whatever their nesting', () => {
    const { ctx, outer, inner, n, c } = setting();
    const a = ctx.add([ctx.addRec([c(0), n], outer), ctx.addRec([c(1), c(1)], inner)]);
    const b = ctx.add([ctx.addRec([c(1), n], outer), ctx.addRec([c(0), c(1)], inner)]);
    expect(polynomialKey(toPolynomial(a))).toBe(polynomialKey(toPolynomial(b)));
    expect(polynomialKey(toPolynomial(a))).not.toBe(polynomialKey(toPolynomial(ctx.add([a, c(1)]))));
  });

  test('an affine subscript is affine', () => {
    const { ctx, inner, n, c } = setting();
    expect(isAffinePolynomial(toPolynomial(ctx.add([ctx.addRec([n, c(8)], inner), c(3)])))).toBe(true);
  });

  test('A[i*n + j-1] in 32-bit int without nsw: opaque as it is, n + n*i + j read through the sext under a no-wrap assumption', () => {
    const { ctx, outer, inner, c } = setting();
    const n32 = ctx.unknown({}, '%n32', 32, 3);
    // -O3's flat jacobi-2d: sext i32 {{%n,+,%n}<i>,+,1}<j> to i64, times 8 bytes.
    const rec = ctx.addRec([ctx.addRec([n32, n32], outer), ctx.constant(1, 32)], inner);
    expect(rec.kind === ScevKind.AddRec && rec.flags).toBe(NoWrap.None);
    const offset = ctx.mul([c(8), ctx.signExtend(rec, 64)]);
    expect(printScev(offset)).toBe('(8 * (sext i32 {{%n32,+,%n32}<%i>,+,1}<%j> to i64))');
    expect(toPolynomial(offset).opaque).toHaveLength(1);
    const { polynomial, casts } = toPolynomialThroughCasts(offset);
    expect(polynomial.opaque).toEqual([]);
    expect(printPolynomial(polynomial)).toBe('8 * %n32 * i%i + 8 * i%j + 8 * %n32');
    expect(casts.map((k) => [printScev(k.cast), printPolynomial(k.operand), k.range])).toEqual([
      ['(sext i32 {{%n32,+,%n32}<%i>,+,1}<%j> to i64)', '%n32 * i%i + i%j + %n32', { bits: 32, signed: true }],
    ]);
    // With nsw the extension folds (as LLVM's getSignExtendExpr): nothing to assume.
    const nsw = ctx.addRec([ctx.addRec([n32, n32], outer, NoWrap.NSW), ctx.constant(1, 32)], inner, NoWrap.NSW);
    expect(toPolynomialThroughCasts(ctx.signExtend(nsw, 64)).casts).toEqual([]);
    // A loop-invariant extension is a parameter, as before.
    expect(toPolynomialThroughCasts(ctx.zeroExtend(n32, 64)).casts).toEqual([]);
  });
});

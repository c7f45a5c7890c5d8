// Delinearization on polynomials, section by section of Grosser et al. (ICS 2015),
// without isl: the shapes guessed and the subscripts found by division.
import { parsePoly, polyToString, polyEquals, divideByShiftedSymbol, divideByScaledMonomial, mul, add, substitute, constant } from '../../polyhedral/delinearization/poly';
import { candidateShapes, monomialShape, shiftedShapes, factorShifted, sizeToPoly, type ShapeCandidate } from '../../polyhedral/delinearization/shape';
import { divideOffset, subscriptPieces } from '../../polyhedral/delinearization/subscripts';

const P = parsePoly;
const show = (c: ShapeCandidate | undefined): string => (c ? `[*]${c.sizes.map((d) => `[${polyToString(sizeToPoly(d))}]`).join('')}` : 'none');
const subs = (offset: string, c: ShapeCandidate, counters: Set<string>): string[] | undefined =>
  divideOffset(P(offset), c.sizes, counters)?.subscripts.map(polyToString);

describe('polynomials', () => {
  test('expand into a sum of products', () => {
    expect(polyToString(P('((i + o0) * n1 + (j + o1)) * n2 + k + o2'))).toBe('i * n1 * n2 + n1 * n2 * o0 + j * n2 + n2 * o1 + i - i + k + o2'.replace(' + i - i', ''));
    expect(polyEquals(P('(a + 1) * (a - 1)'), P('a*a - 1'))).toBe(true);
    expect(polyToString(P('2*x - 3*y - 4'))).toBe('2 * x - 3 * y - 4');
  });

  test('division by a monomial size keeps only exact multiples in the quotient', () => {
    const { quotient, remainder } = divideByScaledMonomial(P('4*M*i + 2*M + 2*j + 1'), 2n, ['M']);
    expect(polyToString(quotient)).toBe('2 * i + 1');
    expect(polyToString(remainder)).toBe('2 * j + 1');
  });

  test('division by P + alpha is exact: p = q*(P + alpha) + r, r free of P', () => {
    const p = P('(i*(R + 2) + j)*(S + 2) + k + 7');
    const { quotient, remainder } = divideByShiftedSymbol(p, 'S', 2n);
    expect(polyToString(remainder)).toBe('k + 7');
    expect(polyToString(quotient)).toBe('R * i + 2 * i + j');
    expect(polyEquals(add(mul(quotient, P('S + 2')), remainder), p)).toBe(true);
    expect(polyEquals(remainder, substitute(p, 'S', constant(-2)))).toBe(true);
  });

  test('the parser rejects what it cannot read', () => {
    expect(() => P('a + ')).toThrow(/end/);
    expect(() => P('a / b')).toThrow(/trailing '\/'/);
  });
});

describe('§3.1 parametric terms, a divisibility chain, division innermost outward', () => {
  const counters = new Set(['i', 'j', 'k']);
  // Listing 4, set_subarray: A[(i+o0)*n1*n2 + (j+o1)*n2 + k+o2]
  const setSubarray = '((i + o0) * n1 + (j + o1)) * n2 + k + o2';

  test('set_subarray: shape [*][n1][n2], subscripts [i+o0][j+o1][k+o2]', () => {
    const shape = monomialShape([P(setSubarray)], counters);
    expect(show(shape)).toBe('[*][n1][n2]');
    expect(shape!.method).toBe('3.1');
    expect(subs(setSubarray, shape!, counters)).toEqual(['i + o0', 'j + o1', 'k + o2']);
  });

  test('terms that do not divide one another give no §3.1 shape', () => {
    expect(monomialShape([P('i*n + j*m + k')], counters)).toBeUndefined();
  });

  test('a product of counters has no affine form under any shape', () => {
    expect(candidateShapes([P('i*j*n + k')], counters)).toEqual([]);
  });

  test('a one-dimensional access has no parametric terms', () => {
    expect(candidateShapes([P('i + 5')], counters)).toEqual([]);
  });
});

describe('§3.2 one shape per base pointer from the terms of all its accesses', () => {
  const counters = new Set(['i', 'j', 'k']);

  test('an access that alone shows only n2 still gets the 3-d shape of its base', () => {
    const accesses = [P('i*n1*n2 + j*n2 + k'), P('j*n2 + k')];
    expect(show(monomialShape([accesses[1]!], counters))).toBe('[*][n2]');
    const shape = monomialShape(accesses, counters)!;
    expect(show(shape)).toBe('[*][n1][n2]');
    expect(subs('j*n2 + k', shape, counters)).toEqual(['0', 'j', 'k']);
  });

  test('an access that does not fit the shape of its base is refused, not forced', () => {
    const shape = monomialShape([P('i*n1*n2 + j*n2 + k')], counters)!;
    expect(subs('i*j + k', shape, counters)).toBeUndefined();
  });
});

describe('§3.3 subscripts that contain size parameters', () => {
  const counters = new Set(['i', 'j', 'k']);

  test('A[0][0][M-1] divides as [0][1][-1]; the piece t = -1 gives it back', () => {
    const shape = monomialShape([P('i*N*M + j*M + k'), P('M - 1')], counters)!;
    expect(show(shape)).toBe('[*][N][M]');
    const divided = divideOffset(P('M - 1'), shape.sizes, counters)!;
    expect(divided.subscripts.map(polyToString)).toEqual(['0', '1', '-1']);
    expect(divided.needsPieces).toEqual([false, true]);
    const pieces = subscriptPieces(divided, shape.sizes, 1);
    expect(pieces.map((p) => p.subscripts.map(polyToString).join(','))).toEqual(['0,1,-1', '0,0,M - 1', '0,2,-M - 1']);
  });

  test('an access without such a part has one piece', () => {
    const shape = monomialShape([P('i*N*M + j*M + k')], counters)!;
    const divided = divideOffset(P('i*N*M + j*M + k + 1'), shape.sizes, counters)!;
    expect(subscriptPieces(divided, shape.sizes, 2)).toHaveLength(1);
  });
});

describe('§3.4 shapes [*][βP]: the gcd of the coefficients in each dimension', () => {
  const counters = new Set(['i', 'j']);

  test('a [2N][2M] image written at rows 2i and 2i+1 has rows of 2M', () => {
    const offsets = [P('2*i*(2*M) + 2*j'), P('(2*i + 1)*(2*M) + 2*j + 1')];
    const shape = monomialShape(offsets, counters)!;
    expect(show(shape)).toBe('[*][2 * M]');
    expect(shape.method).toBe('3.4');
    expect(subs('2*i*(2*M) + 2*j', shape, counters)).toEqual(['2 * i', '2 * j']);
    expect(subs('(2*i + 1)*(2*M) + 2*j + 1', shape, counters)).toEqual(['2 * i + 1', '2 * j + 1']);
  });

  test('gcds nest: [*][2N][3M]', () => {
    const offsets = [P('i*(2*N)*(3*M) + j*(3*M) + k'), P('(2*N)*(3*M) + 3*M')];
    const shape = monomialShape(offsets, new Set(['i', 'j', 'k']))!;
    expect(show(shape)).toBe('[*][2 * N][3 * M]');
  });
});

describe('§4 shapes [*][P1+α1]…: Algorithms 1-3', () => {
  const counters = new Set(['i', 'j', 'k']);
  const stencil = (di: number, dj: number, dk: number): string => `((i + ${di})*(R + 2) + j + ${dj})*(S + 2) + k + ${dk}`;

  test('Algorithm 1: f0 and α from the coefficient of highest degree, checked by expanding back', () => {
    expect(factorShifted(P('(R + 2)*(S + 2)'))).toEqual({ f0: 1n, parameters: ['R', 'S'], alphas: new Map([['R', 2n], ['S', 2n]]) });
    expect(factorShifted(P('2*(M + 3)'))).toEqual({ f0: 2n, parameters: ['M'], alphas: new Map([['M', 3n]]) });
    expect(factorShifted(P('R*S + 2*R + 2*S + 5'))).toBeUndefined();
    expect(factorShifted(P('R*S + T*S'))).toBeUndefined();
  });

  test('the [Q+2][R+2][S+2] stencil: no §3.1 chain; both orders are candidates', () => {
    const offsets = [P(stencil(0, 0, 0)), P(stencil(1, 0, 0)), P(stencil(0, -1, 1))];
    expect(monomialShape(offsets, counters)).toBeUndefined();
    expect(shiftedShapes(offsets, counters).map(show)).toEqual(['[*][R + 2][S + 2]', '[*][S + 2][R + 2]']);
  });

  test('Algorithm 2/3: only the right order divides into affine subscripts, α = 2 per inner dimension', () => {
    const offsets = [P(stencil(1, 1, 1)), P(stencil(1, 0, 1)), P(stencil(2, 1, 0))];
    const [right, wrong] = shiftedShapes(offsets, counters);
    expect(right!.sizes.map((d) => d.alpha)).toEqual([2n, 2n]);
    expect(subs(stencil(1, 1, 1), right!, counters)).toEqual(['i + 1', 'j + 1', 'k + 1']);
    expect(subs(stencil(2, 1, 0), right!, counters)).toEqual(['i + 2', 'j + 1', 'k']);
    expect(subs(stencil(1, 1, 1), wrong!, counters)).toBeUndefined();
  });

  test('f0 ≠ 1: A[2i][j] in rows of M + 3', () => {
    const shapes = candidateShapes([P('2*i*(M + 3) + j')], new Set(['i', 'j']));
    expect(shapes.map(show)).toEqual(['[*][2 * M]', '[*][M + 3]']);
    expect(subs('2*i*(M + 3) + j', shapes[1]!, new Set(['i', 'j']))).toEqual(['2 * i', 'j']);
  });
});

// Delinearization with its validity conditions, on polynomials and hand-written
// domains (no IR): the paper's examples end to end through isl. Conditions are
// compared with isl (equal wherever some access runs), never as text.
import { Ctx, type Set as IslSet } from 'isl-wasm';
import { parsePoly, polyToString } from '../../polyhedral/delinearization/poly';
import { delinearizeArray, mergeConditions, shapeText, type ArrayResult, type ArrayDelinearization } from '../../polyhedral/delinearization';
import { conditionToC } from '../../polyhedral/delinearization/validity';

let ctx: Ctx;
beforeAll(() => {
  ctx = new Ctx();
});
afterAll(() => ctx.dispose());

interface Case {
  params: string;
  /** Extra facts about the parameters (e.g. unsigned ones are >= 0). */
  context?: string;
  /** [name, domain constraints over dims, offset] */
  accesses: [string, string, string, string][];
}

/** accesses: [tag, dims "i, j", constraints, offset] */
function run(c: Case, maxShift = 1): { result: ArrayResult<string>; context: IslSet } {
  const context = ctx.set(`[${c.params}] -> { : ${c.context ?? '1 = 1'} }`);
  const accesses = c.accesses.map(([tag, dims, constraints, offset], k) => ({
    tag,
    offset: parsePoly(offset),
    domain: ctx.set(`[${c.params}] -> { S_${k}[${dims}] : ${constraints} }`),
  }));
  return { result: delinearizeArray(ctx, context, accesses, { maxShift }), context };
}

function ok(r: ArrayResult<string>): ArrayDelinearization<string> {
  if (!r.ok) throw new Error(`not delinearized: ${r.reason}: ${r.detail}`);
  return r;
}

const subscriptsOf = (r: ArrayDelinearization<string>): Record<string, string> =>
  Object.fromEntries(r.accesses.map((a) => [a.tag, a.pieces.map((p) => p.subscripts.map((f) => `[${polyToString(f)}]`).join('')).join(' | ')]));

/** `actual` and `expected` (isl text over `params`) agree wherever `where` holds. */
function sameWhere(actual: IslSet, expected: string, where: IslSet): boolean {
  const e = ctx.set(expected);
  return actual.intersect(where).isEqual(e.intersect(where));
}

describe('§3.1 set_subarray (Listing 4)', () => {
  const c: Case = {
    params: 'o0, o1, o2, s0, s1, s2, n0, n1, n2',
    context: 'o0 >= 0 and o1 >= 0 and o2 >= 0 and s0 >= 0 and s1 >= 0 and s2 >= 0 and n0 >= 0 and n1 >= 0 and n2 >= 0',
    accesses: [['A', 'i, j, k', '0 <= i < s0 and 0 <= j < s1 and 0 <= k < s2', '((i + o0)*n1 + (j + o1))*n2 + k + o2']],
  };

  test('shape [*][n1][n2], A[i+o0][j+o1][k+o2], condition o1 <= n1 - s1 && o2 <= n2 - s2', () => {
    const { result, context } = run(c);
    const r = ok(result);
    expect(shapeText(r.shape.sizes)).toBe('[*][n1][n2]');
    expect(r.shapeC).toEqual(['*', 'n1', 'n2']);
    expect(subscriptsOf(r)).toEqual({ A: '[i + o0][j + o1][k + o2]' });
    expect(r.status).toBe('conditional');
    const running = ctx.set(`[${c.params}] -> { : s0 > 0 and s1 > 0 and s2 > 0 }`).intersect(context);
    expect(sameWhere(r.condition, `[${c.params}] -> { : o1 <= n1 - s1 and o2 <= n2 - s2 }`, running)).toBe(true);
    // Simplified against where the loops run: no s0 > 0 etc. left in it.
    expect(r.conditionC).not.toMatch(/s0/);
    expect(r.conditionC).toMatch(/n1/);
  });

  test('the access relation names the array and the subscripts', () => {
    const r = ok(run(c).result);
    const rel = ctx.map(r.accesses[0]!.relation('MemRef_A'));
    expect(rel.isEqual(ctx.map(`[${c.params}] -> { S_0[i, j, k] -> MemRef_A[i + o0, j + o1, k + o2] }`))).toBe(true);
  });
});

describe('§3.2/§3.3 Listing 5: one shape for all accesses; size parameters in subscripts', () => {
  const dom = '0 <= i < n and 0 <= j < m and 0 <= k < p';
  const at = (i: string, j: string, k: string): string => `((${i})*m + ${j})*p + ${k}`;
  const c: Case = {
    params: 'n, m, p',
    accesses: [
      ['Aijk', 'i, j, k', dom, at('i', 'j', 'k')],
      ['A0jk', 'i, j, k', dom, at('0', 'j', 'k')],
      ['Aim1k', 'i, j, k', dom, at('i', 'm - 1', 'k')],
      ['Aijp1', 'i, j, k', dom, at('i', 'j', 'p - 1')],
      ['A00p1', 'i, j, k', dom, at('0', '0', 'p - 1')],
    ],
  };

  test('the accesses come out as written, and the condition holds whenever the loops run', () => {
    const r = ok(run(c).result);
    expect(shapeText(r.shape.sizes)).toBe('[*][m][p]');
    expect(subscriptsOf(r)).toEqual({
      Aijk: '[i][j][k]',
      A0jk: '[0][j][k]',
      Aim1k: '[i][m - 1][k]',
      Aijp1: '[i][j][p - 1]',
      A00p1: '[0][0][p - 1]',
    });
    expect(r.status).toBe('true');
    expect(r.conditionC).toBeUndefined();
  });

  test('without the pieces (k = 0), A[0][0][p-1] divides as [0][1][-1] and the shape is refused', () => {
    const r = run({ ...c, accesses: [c.accesses[0]!, c.accesses[4]!] }, 0).result;
    expect(r.ok).toBe(false);
    // [*][m][p] is contradicted; §4's other order [*][p][m] does not even divide.
    expect(r.tried.map((t) => `${t.shape}:${t.outcome}`)).toEqual(['[*][m][p]:contradiction', '[*][p][m]:not-affine']);
  });
});

describe('§3.3 reg_detect: a subscript length - 1 outside the loop over length', () => {
  test('the condition is length >= 1', () => {
    const { result, context } = run({
      params: 'maxgrid, length',
      accesses: [
        ['write', 'j, i, c', '0 <= j < maxgrid and j <= i < maxgrid and 0 <= c < length', '(j*maxgrid + i)*length + c'],
        ['mean', 'j, i', '0 <= j < maxgrid and j <= i < maxgrid', '(j*maxgrid + i)*length + length - 1'],
        ['first', 'j, i', '0 <= j < maxgrid and j <= i < maxgrid', '(j*maxgrid + i)*length'],
      ],
    });
    const r = ok(result);
    expect(shapeText(r.shape.sizes)).toBe('[*][maxgrid][length]');
    expect(subscriptsOf(r).mean).toBe('[j][i][length - 1]');
    expect(r.status).toBe('conditional');
    const running = ctx.set('[maxgrid, length] -> { : maxgrid > 0 }').intersect(context);
    expect(sameWhere(r.condition, '[maxgrid, length] -> { : length > 0 }', running)).toBe(true);
    expect(r.conditionC).toBe('length >= 1');
  });
});

describe('§3.4 a [2N][2M] image resize', () => {
  test('rows of 2M through the gcd; the subscripts 2i, 2i+1, 2j, 2j+1', () => {
    const dom = '0 <= i < N and 0 <= j < M';
    const r = ok(run({
      params: 'N, M',
      accesses: [
        ['even', 'i, j', dom, '2*i*(2*M) + 2*j'],
        ['odd', 'i, j', dom, '(2*i + 1)*(2*M) + 2*j + 1'],
      ],
    }).result);
    expect(shapeText(r.shape.sizes)).toBe('[*][2 * M]');
    expect(r.shape.method).toBe('3.4');
    expect(subscriptsOf(r)).toEqual({ even: '[2 * i][2 * j]', odd: '[2 * i + 1][2 * j + 1]' });
    expect(r.status).toBe('true');
  });
});

describe('§4 the [Q+2][R+2][S+2] stencil (Listing 7 pattern)', () => {
  test('α = 2 in each inner dimension, the order found by dividing, statically valid', () => {
    const dom = '1 <= i <= Q and 1 <= j <= R and 1 <= k <= S';
    const at = (i: string, j: string, k: string): string => `((${i})*(R + 2) + ${j})*(S + 2) + ${k}`;
    const r = ok(run({
      params: 'Q, R, S',
      accesses: [
        ['c', 'i, j, k', dom, at('i', 'j', 'k')],
        ['n', 'i, j, k', dom, at('i - 1', 'j', 'k')],
        ['s', 'i, j, k', dom, at('i + 1', 'j', 'k')],
        ['w', 'i, j, k', dom, at('i', 'j - 1', 'k')],
        ['e', 'i, j, k', dom, at('i', 'j + 1', 'k')],
        ['d', 'i, j, k', dom, at('i', 'j', 'k - 1')],
        ['u', 'i, j, k', dom, at('i', 'j', 'k + 1')],
      ],
    }).result);
    expect(r.shape.method).toBe('4');
    expect(r.shape.sizes.map((d) => d.alpha)).toEqual([2n, 2n]);
    expect(shapeText(r.shape.sizes)).toBe('[*][R + 2][S + 2]');
    expect(subscriptsOf(r)).toMatchObject({ c: '[i][j][k]', n: '[i - 1][j][k]', e: '[i][j + 1][k]', u: '[i][j][k + 1]' });
    expect(r.status).toBe('true');
  });

  test('a §3.1 shape that only holds in a corner loses to a §4 shape that always holds', () => {
    const r = ok(run({ params: 'n, m', accesses: [['A', 'i, j', '0 <= i < n and 0 <= j < m', 'i*(m + 2) + j']] }).result);
    expect(shapeText(r.shape.sizes)).toBe('[*][m + 2]');
    expect(r.tried.map((t) => `${t.shape}:${t.outcome}`)).toEqual(['[*][m]:conditional', '[*][m + 2]:chosen']);
  });
});

describe('contradictions and failures', () => {
  test('a shape whose condition fails wherever the access runs is rejected', () => {
    const r = run({ params: 'M', accesses: [['A', 'i, j', '0 <= i < 10 and 0 <= j < 2*M', 'i*M + j']] }).result;
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toBe('no-shape');
    expect(r.tried).toEqual([{ shape: '[*][M]', method: '3.1', outcome: 'contradiction' }]);
  });

  test('no parameter multiplies a counter: nothing to recover', () => {
    const r = run({ params: 'n', accesses: [['A', 'i', '0 <= i < n', 'i + 3']] }).result;
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toBe('no-parametric-terms');
  });
});

describe('edge detection: row pointers advanced by NN', () => {
  test('[*][NN] with a condition that holds for the real parameters (cols <= NN)', () => {
    const dom = '1 <= r < rows - 1 and 1 <= c < cols - 1';
    const accesses: [string, string, string, string][] = [];
    for (const dr of [-1, 0, 1]) for (const dc of [-1, 0, 1]) accesses.push([`${dr},${dc}`, 'r, c', dom, `NN*(r + ${dr}) + c + ${dc}`]);
    const { result, context } = run({ params: 'rows, cols, NN', accesses });
    const r = ok(result);
    expect(r.shapeC).toEqual(['*', 'NN']);
    expect(subscriptsOf(r)['1,-1']).toBe('[r + 1][c - 1]');
    const running = ctx.set('[rows, cols, NN] -> { : rows >= 3 and cols >= 3 }').intersect(context);
    expect(sameWhere(r.condition, '[rows, cols, NN] -> { : cols <= NN }', running)).toBe(true);
    // The real parameters of the kernel's main(): 16 x 20 in rows of 24.
    expect(r.condition.intersect(ctx.set('[rows, cols, NN] -> { : rows = 16 and cols = 20 and NN = 24 }')).isEmpty()).toBe(false);
  });
});

describe('one condition per SCoP', () => {
  test('conditions of two arrays are merged and simplified together', () => {
    const context = ctx.set('[n, m, a, b] -> { : }');
    const A = ok(delinearizeArray(ctx, context, [{ tag: 'A', offset: parsePoly('i*m + j + a'), domain: ctx.set('[n, m, a, b] -> { S[i, j] : 0 <= i < n and 0 <= j < m - 1 }') }]));
    const B = ok(delinearizeArray(ctx, context, [{ tag: 'B', offset: parsePoly('i*n + j + b'), domain: ctx.set('[n, m, a, b] -> { T[i, j] : 0 <= i < n and 0 <= j < n }') }]));
    const merged = mergeConditions(context, [A, B]);
    expect(merged.status).toBe('conditional');
    const running = ctx.set('[n, m, a, b] -> { : n > 0 }');
    expect(sameWhere(merged.condition, '[n, m, a, b] -> { : (m < 2 or (a >= 0 and a <= 1)) and b = 0 }', running)).toBe(true);
  });

  test('statically true conditions vanish', () => {
    const context = ctx.set('[n] -> { : }');
    const A = ok(delinearizeArray(ctx, context, [{ tag: 'A', offset: parsePoly('i*n + j'), domain: ctx.set('[n] -> { S[i, j] : 0 <= i < n and 0 <= j < n }') }]));
    const merged = mergeConditions(context, [A]);
    expect(merged).toMatchObject({ status: 'true', c: undefined });
  });
});

describe('a size that is a product of parameters (§3.1 with one inner dimension of n*m)', () => {
  test('isl sees the product as a parameter of its own; C spells it out', () => {
    const r = ok(run({ params: 'n, m', accesses: [['A', 'i, j', '0 <= i < 5 and 0 <= j < 10', 'i*n*m + j']] }).result);
    expect(r.shapeC).toEqual(['*', 'm * n']);
    expect(subscriptsOf(r)).toEqual({ A: '[i][j]' });
    expect(r.conditionC).toBe('m * n >= 10');
  });

  test('§3.3 with a product size: B[0][n*m - 1] is not B[1][-1]', () => {
    const r = ok(run({
      params: 'n, m',
      accesses: [['A', 'i, j', '0 <= i < 5 and 0 <= j < 10', 'i*n*m + j'], ['B', 'i', '0 <= i < 5', 'n*m - 1']],
    }).result);
    expect(subscriptsOf(r)).toEqual({ A: '[i][j]', B: '[0][m * n - 1]' });
    expect(r.conditionC).toBe('m * n >= 10');
  });
});

describe('conditions as C', () => {
  test('a conjunction of bounds', () => {
    const context = ctx.set('[a, b] -> { : }');
    const r = ok(delinearizeArray(ctx, context, [
      { tag: 'A', offset: parsePoly('i*b + a'), domain: ctx.set('[a, b] -> { S[i] : 0 <= i < 4 }') },
    ]));
    // 0 <= a < b: the single subscript a of the inner dimension.
    expect(r.conditionC).toBe('a >= 0 && b >= a + 1');
  });

  test('disjunctions are parenthesized, equalities use ==', () => {
    const c = conditionToC(ctx.set('[a, b] -> { : a = 0 or (b >= 2 and a >= 1) }'), (n) => `${n}_c`)!;
    expect(c).toMatch(/\|\|/);
    expect(c).toMatch(/a_c == 0/);
    expect(c).toMatch(/\(.* && .*\)/);
  });
});

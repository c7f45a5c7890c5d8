// What the model assumes and how it bounds its own cost: in-bounds subscripts of a
// fixed-size array, unsigned values read as signed, the isl operations quota; and the
// schedule tree handed to AST generation (issue 6) says the same as the 2D+1 schedule.
import * as path from 'node:path';
import { ScheduleNodeType, type Ctx, type ScheduleNode, type UnionMap } from 'isl-wasm';
import { parseModule } from '../../ir';
import { AnalysisManager } from '../../analysis/analysis-manager';
import { buildFunctionModels } from '../../polyhedral/analysis';
import { defaultMaxOperations } from '../../polyhedral/build';
import type { FunctionScopModels, ScopModel } from '../../polyhedral/model';
import { compileToIr, disassemble } from '../support/tools';
import { O3, modelKernel } from './support';

function modelFixture(file: string, fn: string): FunctionScopModels {
  const module = parseModule(disassemble(compileToIr(path.join(__dirname, 'fixtures', file), [...O3, '-g'])));
  return buildFunctionModels(module.functions.find((f) => f.name === fn)!, new AnalysisManager(), { maxOperations: defaultMaxOperations });
}

/** True when the parameter values satisfy the model's assumptions (and its context). */
function assumed(m: ScopModel, values: Record<string, number>): boolean {
  const names = m.parameters.map((p) => p.name);
  const point = m.ctx.set(`[${names.join(', ')}] -> { : ${names.map((n) => `${n} = ${values[n]}`).join(' and ')} }`);
  return point.isSubset(m.assumedContext);
}

describe('assumptions', () => {
  test('a fixed-size global array: two-dimensional from the GEPs, with the inner subscript inside its 100 columns', () => {
    const f = modelFixture('fixed-size.c', 'fixed_rows');
    try {
      expect(f.models).toHaveLength(1);
      const m = f.models[0]!;
      expect(m.arrays.map((a) => [a.name, a.shape, a.delinearized])).toEqual([['A', ['100', '100'], false]]);
      expect(m.assumptions.map((a) => [a.kind, a.c])).toEqual([['in-bounds', 'm <= 100']]);
      expect(assumed(m, { n: 1000, m: 100 })).toBe(true);
      expect(assumed(m, { n: 10, m: 101 })).toBe(false);
    } finally {
      f.dispose();
    }
  });

  test('unsigned bounds read as signed: right when lo and hi are non-negative and hi - lo does not wrap', () => {
    const k = modelKernel('detect-unsigned', { function: 'kernel_copy_span' });
    try {
      expect(k.kernel.models).toHaveLength(1);
      const m = k.kernel.models[0]!;
      expect(m.assumptions.map((a) => a.kind)).toEqual(['unsigned']);
      expect(assumed(m, { lo: 0, hi: 100 })).toBe(true);
      expect(assumed(m, { lo: 7, hi: 1 << 30 })).toBe(true);
      // hi - lo wraps around in unsigned arithmetic: ~4 billion iterations, not a negative count.
      expect(assumed(m, { lo: 5, hi: 3 })).toBe(false);
      // 3e9 as an unsigned argument is -1294967296 as the signed parameter the model uses.
      expect(assumed(m, { lo: 0, hi: -1294967296 })).toBe(false);
      expect(m.assumptions[0]!.c).toMatch(/^lo >= 0 && hi >= lo/);
    } finally {
      k.dispose();
    }
  });
});

test('set_subarray (ICS\'15 Listing 4): the delinearized view is valid where every inner subscript stays in its dimension', () => {
  const k = modelKernel('delin-set-subarray', { function: 'set_subarray' });
  try {
    const m = k.kernel.models[0]!;
    expect(m.arrays.filter((a) => a.kind === 'array').map((a) => [a.name, a.shape, a.delinearized])).toEqual([['A', ['*', 'n1', 'n2'], true]]);
    expect(m.assumptions.map((a) => a.kind)).toEqual(['delinearization']);
    // A[i + o0][j + o1][k + o2] for j < s1, k < s2: needs 0 <= o1, o1 + s1 <= n1 (and the same for o2, n2).
    const expected = m.ctx.set('[n1, n2, o1, o2, s1, s2] -> { : 0 <= o1 <= n1 - s1 and 0 <= o2 <= n2 - s2 }').intersectParams(m.context);
    expect(m.assumedContext.isEqual(expected.intersect(m.context))).toBe(true);
  } finally {
    k.dispose();
  }
});

describe('the isl operations quota', () => {
  test('past the quota each SCoP is dropped with a reason (each gets its own quota)', () => {
    const k = modelKernel('2mm', { maxOperations: 20_000 });
    try {
      expect(k.kernel.models).toHaveLength(0);
      const dropped = k.kernel.rejections.filter((r) => r.detail.includes('quota'));
      expect(dropped).toHaveLength(2);
      for (const r of dropped) {
        expect(r.cause).toBe('other');
        expect(r.detail).toMatch(/^isl operations quota \(20000\) exceeded while modelling the SCoP/);
      }
    } finally {
      k.dispose();
    }
  });
});

/** { A[..] -> B[..] : A runs before B } for a schedule whose ranges all have `width` dimensions. */
function precedes(ctx: Ctx, schedule: UnionMap, width: number): UnionMap {
  const s = Array.from({ length: width }, (_, k) => `s${k}`);
  const t = Array.from({ length: width }, (_, k) => `t${k}`);
  const pieces = s.map((_, k) => [...s.slice(0, k).map((x, j) => `${x} = t${j}`), `s${k} < t${k}`].join(' and '));
  const lexLess = ctx.unionMap(`{ [${s.join(', ')}] -> [${t.join(', ')}] : ${pieces.map((p) => `(${p})`).join(' or ')} }`);
  return schedule.applyRange(lexLess).applyRange(schedule.reverse());
}

describe('the schedule tree', () => {
  const bands = (node: ScheduleNode): number =>
    (node.getType() === ScheduleNodeType.band ? 1 : 0) + Array.from({ length: node.nChildren() }, (_, k) => bands(node.child(k))).reduce((a, b) => a + b, 0);

  test.each(['gemm', '2mm'])('%s: a band per loop, it covers every statement, and it orders instances as the 2D+1 schedule does', (name) => {
    const k = modelKernel(name);
    try {
      expect(k.kernel.models.length).toBeGreaterThan(0);
      for (const m of k.kernel.models) {
        m.ctx.scope(() => {
          const tree = m.scheduleTree;
          expect(bands(tree.getRoot())).toBe(m.loops.length);
          expect(tree.getDomain().isEqual(m.domains)).toBe(true);
          const flat = tree.getMap();
          const dims = new Set<number>();
          for (const map of flat.getMapList().toArray()) dims.add(map.rangeTupleDim());
          const treeWidth = [...dims];
          expect(treeWidth).toHaveLength(1);
          const byTree = precedes(m.ctx, flat, treeWidth[0]!).intersectDomain(m.domains).intersectRange(m.domains);
          const byMap = precedes(m.ctx, m.schedule, 2 * m.depth + 1).intersectDomain(m.domains).intersectRange(m.domains);
          expect(byTree.isEqual(byMap)).toBe(true);
        });
      }
    } finally {
      k.dispose();
    }
  });
});

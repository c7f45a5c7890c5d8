// The report contract of issue 4 (`tsopt --report=FILE`): exactly these JSON fields,
// arrays named by their source names, shapes as C expressions outermost first.
import { AnalysisManager } from '../../analysis/analysis-manager';
import { buildReport, formatReport, type TsoptReport } from '../../passes/scop-report';
import { kernelIr } from './support';

function report(kernel: string): TsoptReport {
  return buildReport(kernelIr(kernel), new AnalysisManager());
}

describe('buildReport / formatReport', () => {
  test('gemm: one SCoP, delinearized arrays, aliasing pairs, parallel loops by source line, nothing to assume', () => {
    const r = report('gemm');
    const fn = r.functions.find((f) => f.name === 'kernel_gemm')!;
    expect(fn).toEqual({
      name: 'kernel_gemm',
      scops: [
        {
          location: 'test/kernels/gemm.c:22',
          depth: 3,
          statements: 6,
          parameters: ['ni', 'nj', 'nk'],
          arrays: [
            expect.objectContaining({ name: 'C', elementBytes: 8, shape: ['*', 'nj'], validity: '1' }),
            expect.objectContaining({ name: 'A', elementBytes: 8, shape: ['*', 'nk'], validity: '1' }),
            expect.objectContaining({ name: 'B', elementBytes: 8, shape: ['*', 'nj'], validity: '1' }),
          ],
          assumptions: [],
          aliasPairs: [['C', 'A'], ['C', 'B']],
          // -O3 made two copies of the i nest (nk <= 0 or not) and unrolled the j loops
          // (main and remainder loops): each copy is named by its header block.
          parallelLoops: [
            'test/kernels/gemm.c:22 (%68)', 'test/kernels/gemm.c:23 (%29)', 'test/kernels/gemm.c:23 (%56)', 'test/kernels/gemm.c:26',
            'test/kernels/gemm.c:22 (%129)', 'test/kernels/gemm.c:23 (%132)', 'test/kernels/gemm.c:23 (%159)',
          ],
          runtimeCheck: '1',
          delinearization: '1',
        },
      ],
      rejected: [],
    });
    // Exactly the contract's field names, in JSON.
    const json = JSON.parse(formatReport(r, 'json')) as TsoptReport;
    expect(Object.keys(json)).toEqual(['functions']);
    expect(Object.keys(json.functions[0]!)).toEqual(['name', 'scops', 'rejected']);
    expect(Object.keys(json.functions.find((f) => f.scops.length > 0)!.scops[0]!)).toEqual([
      'location', 'depth', 'statements', 'parameters', 'arrays', 'assumptions', 'aliasPairs', 'parallelLoops', 'runtimeCheck', 'delinearization',
    ]);
  });

  test('detect-unsigned: an assumption becomes the run-time check', () => {
    const r = report('detect-unsigned');
    const copy = r.functions.find((f) => f.name === 'kernel_copy_span')!;
    expect(copy.scops).toHaveLength(1);
    expect(copy.scops[0]!.assumptions).toHaveLength(1);
    expect(copy.scops[0]!.runtimeCheck).toBe(copy.scops[0]!.assumptions[0]);
    const text = formatReport(r, 'text');
    expect(text).toContain('function kernel_copy_span: 1 SCoP, 0 rejected regions');
    expect(text).toContain(`    assumes ${copy.scops[0]!.assumptions[0]}`);
    expect(text).toContain(`    run-time check: ${copy.scops[0]!.runtimeCheck}`);
  });

  test('detect-printf: the loop calling printf is rejected with its cause and location', () => {
    const r = report('detect-printf');
    const fn = r.functions.find((f) => f.name === 'kernel_print_prefix')!;
    expect(fn.scops).toEqual([]);
    expect(fn.rejected).toContainEqual({ cause: 'function-call', location: 'test/kernels/detect-printf.c:26', detail: 'call to @printf' });
    expect(formatReport(r, 'text')).toContain('  rejected at test/kernels/detect-printf.c:26: function-call: call to @printf');
  });

  test('set_subarray (issue 5): each access\'s subscripts, the array\'s validity and the SCoP\'s merged condition, in JSON and text', () => {
    const r = report('delin-set-subarray');
    const scop = r.functions.find((f) => f.name === 'set_subarray')!.scops[0]!;
    const a = scop.arrays.find((x) => x.name === 'A')!;
    expect(a.shape).toEqual(['*', 'n1', 'n2']);
    // Unrolled by two along k: a main statement (two writes) and a remainder.
    expect(a.accesses.map((x) => x.kind)).toEqual(['write', 'write', 'write']);
    expect(a.accesses[0]!.subscripts).toBe('[i0 + o0][i1 + o1][2 * i2 + o2]');
    expect(a.accesses[1]!.subscripts).toBe('[i0 + o0][i1 + o1][2 * i2 + o2 + 1]');
    const condition = (c: string): string[] => c.split(' && ').sort();
    const expected = ['n1 >= s1 + o1', 'n2 >= s2 + o2', 'o1 >= 0', 'o2 >= 0'];
    expect(condition(a.validity!)).toEqual(expected);
    expect(condition(scop.delinearization)).toEqual(expected);
    // The same condition is what the run-time check asks (through the model's assumption).
    expect(condition(scop.runtimeCheck)).toEqual(expected);
    const json = JSON.parse(formatReport(r, 'json')) as TsoptReport;
    const fromJson = json.functions.find((f) => f.name === 'set_subarray')!.scops[0]!;
    expect(Object.keys(fromJson.arrays[0]!)).toEqual(['name', 'elementBytes', 'shape', 'accesses', 'validity']);
    expect(fromJson.arrays[0]!.accesses[0]).toEqual({ kind: 'write', subscripts: '[i0 + o0][i1 + o1][2 * i2 + o2]' });
    const text = formatReport(r, 'text');
    expect(text).toContain(`    array A[*][n1][n2] of 8-byte elements, delinearized, valid if ${a.validity}`);
    expect(text).toContain('      write A[i0 + o0][i1 + o1][2 * i2 + o2]');
    expect(text).toContain(`    delinearization valid if ${scop.delinearization}`);
  });

  test('atax: arrays that keep their flat form list their accesses from the model, in C', () => {
    const scop = report('atax').functions.find((f) => f.name === 'kernel_atax')!.scops[0]!;
    const tmp = scop.arrays.find((x) => x.name === 'tmp')!;
    expect(tmp.validity).toBeUndefined();
    expect(new Set(tmp.accesses.map((x) => x.subscripts))).toEqual(new Set(['[i0]']));
    const x = scop.arrays.find((a) => a.name === 'x')!;
    expect(x.accesses.map((a) => a.subscripts)).toContain('[1 + 2 * i1]');
    expect(scop.delinearization).toBe('1');
  });
});

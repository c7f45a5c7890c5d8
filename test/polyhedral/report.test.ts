// The report contract of issue 4 (`tsopt --report=FILE`): exactly these JSON fields,
// arrays named by their source names, shapes as C expressions outermost first.
import { AnalysisManager } from '../../passes/analysis-manager';
import { buildReport, formatReport, type TsoptReport } from '../../passes/report';
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
            { name: 'C', elementBytes: 8, shape: ['*', 'nj'] },
            { name: 'A', elementBytes: 8, shape: ['*', 'nk'] },
            { name: 'B', elementBytes: 8, shape: ['*', 'nj'] },
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
        },
      ],
      rejected: [],
    });
    // Exactly the contract's field names, in JSON.
    const json = JSON.parse(formatReport(r, 'json')) as TsoptReport;
    expect(Object.keys(json)).toEqual(['functions']);
    expect(Object.keys(json.functions[0]!)).toEqual(['name', 'scops', 'rejected']);
    expect(Object.keys(json.functions.find((f) => f.scops.length > 0)!.scops[0]!)).toEqual([
      'location', 'depth', 'statements', 'parameters', 'arrays', 'assumptions', 'aliasPairs', 'parallelLoops', 'runtimeCheck',
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
});

// polly-reference.json is generated data (what Polly 14 reports on our kernels); these tests
// keep it honest: it covers every kernel, it is up to date for a few cheap kernels, and the
// remark parser merges Polly's repeated reports the way polly-reference.ts says.
// TSOPT_REGEN_POLLY=1 regenerates the whole file instead (several minutes).
import { findKernel, listKernels } from '../support/kernels';
import {
  functionsWithPollyCode,
  generatePollyReference,
  pollyReferenceFor,
  pollyRegions,
  readPollyReference,
  writePollyReference,
} from './polly-reference';

const regenerate = process.env.TSOPT_REGEN_POLLY === '1';

(regenerate ? test : test.skip)('regenerate polly-reference.json', () => {
  writePollyReference(generatePollyReference());
}, 30 * 60 * 1000);

describe('polly-reference.json', () => {
  test('has flat results for every kernel and VLA results exactly where the VLA build differs', () => {
    const reference = readPollyReference();
    const kernels = listKernels();
    expect(Object.keys(reference.kernels).sort()).toEqual(kernels.map((k) => k.name).sort());
    for (const k of kernels) {
      const builds = Object.keys(reference.kernels[k.name]!).sort();
      expect({ kernel: k.name, builds }).toEqual({ kernel: k.name, builds: k.hasVla ? ['flat', 'vla'] : ['flat'] });
    }
  });

  // Cheap kernels (Polly compiles each in well under a second) with different outcomes:
  // a SCoP in both builds, a function-call rejection, a SCoP only in the VLA build.
  test.each([
    ['atax', 'flat'],
    ['detect-printf', 'flat'],
    ['jacobi-2d', 'flat'],
    ['jacobi-2d', 'vla'],
  ] as const)('is up to date for %s (%s)', (name, build) => {
    const recorded = readPollyReference().kernels[name]![build];
    expect(pollyReferenceFor(findKernel(name), build)).toEqual(recorded);
  });

  test('records the outcomes the kernels were written to show', () => {
    const { kernels } = readPollyReference();
    expect(kernels['atax']!.flat!.scopFunctions).toEqual(['kernel_atax']);
    const printf = kernels['detect-printf']!.flat!;
    expect(printf.scopFunctions).not.toContain('kernel_print_prefix');
    expect(printf.rejected.filter((r) => r.function === 'kernel_print_prefix').flatMap((r) => r.causes)).toEqual(
      expect.arrayContaining([expect.stringMatching(/function call cannot be handled/)]),
    );
    const list = kernels['detect-linked-list']!.flat!;
    expect(list.rejected.filter((r) => r.function === 'kernel_list_scale').flatMap((r) => r.causes)).toEqual(
      expect.arrayContaining([expect.stringMatching(/affine function from the loop bounds/)]),
    );
    // Polly 14: the linearized [Q+2][R+2][S+2] stencil is not affine to it.
    const stencil = kernels['delin-stencil-alpha']!.flat!;
    expect(stencil.scopFunctions).toEqual([]);
    expect(stencil.rejected.flatMap((r) => r.causes)).toEqual(
      expect.arrayContaining([expect.stringMatching(/is not affine/)]),
    );
  });
});

describe('the remark parser', () => {
  const kernel = findKernel('jacobi-2d');
  const remark = (loc: string, text: string, pass = 'polly-scops'): string =>
    `jacobi-2d.c:${loc}: remark: ${text} [-Rpass-analysis=${pass}]`;

  test('merges a region reported twice (the second time with a moved end) and keeps the first end', () => {
    const stderr = [
      remark('18:3', 'SCoP begins here.'),
      remark('16:13', 'Signed-unsigned restriction:\t[p_0, p_1] -> {  : p_1 < 0 }'),
      remark('26:56', 'SCoP ends here.'),
      remark('18:3', 'SCoP begins here.'),
      remark('21:34', 'Possibly aliasing pointer, use restrict keyword.'),
      remark('28:1', 'SCoP ends here.'),
      'jacobi-2d.c:18:3: note: could not determine the original source location for jacobi-2d.c:0:0',
    ].join('\n');
    expect(pollyRegions(kernel, stderr)).toEqual({
      scops: [
        {
          function: 'kernel_jacobi_2d',
          begin: '18:3',
          end: '26:56',
          status: 'scop',
          remarks: ['16:13 Signed-unsigned restriction: [p_0, p_1] -> { : p_1 < 0 }', '21:34 Possibly aliasing pointer, use restrict keyword.'],
        },
      ],
      rejected: [],
      scopFunctions: ['kernel_jacobi_2d'],
    });
  });

  test('a false profitability assumption, even after the region ended, makes it unprofitable', () => {
    const stderr = [
      remark('18:3', 'SCoP begins here.'),
      remark('26:56', 'SCoP ends here.'),
      remark('16:13', 'Profitable assumption:\t[p_0, p_1] -> {  : false }'),
      remark('18:3', 'SCoP begins here.'),
      remark('26:56', 'SCoP ends here.'),
    ].join('\n');
    const parsed = pollyRegions(kernel, stderr);
    expect(parsed.scops.map((s) => s.status)).toEqual(['unprofitable']);
    expect(parsed.scopFunctions).toEqual([]);
  });

  test('rejections keep their causes; locations in other files are prefixed', () => {
    const stderr = [
      remark('34:15', 'The following errors keep this region from being a Scop.', 'polly-detect'),
      remark('34:15', 'No profitable polyhedral optimization found', 'polly-detect'),
      remark('38:60', 'Invalid Scop candidate ends here.', 'polly-detect'),
      './kernel.h:94:3: remark: The following errors keep this region from being a Scop. [-Rpass-missed=polly-detect]',
      './kernel.h:95:12: remark: No profitable polyhedral optimization found [-Rpass-missed=polly-detect]',
    ].join('\n');
    expect(pollyRegions(kernel, stderr).rejected).toEqual([
      { function: 'main', begin: '34:15', end: '38:60', causes: ['34:15 No profitable polyhedral optimization found'] },
      { begin: 'kernel.h:94:3', end: null, causes: ['kernel.h:95:12 No profitable polyhedral optimization found'] },
    ]);
  });

  test('finds the functions holding Polly-generated blocks', () => {
    const ir = ['define void @f(i32 %n) {', 'entry:', 'polly.stmt.for.body:', '}', 'define void @g() {', 'entry:', '}'].join('\n');
    expect(functionsWithPollyCode(ir)).toEqual(['f']);
  });
});

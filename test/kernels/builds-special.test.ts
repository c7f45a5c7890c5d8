// Detection, delinearization and DeLICM kernels: see build-checks.ts for what every kernel
// must satisfy; below, what these categories promise beyond that.
import { findKernel, listKernels, runKernel, buildKernel } from '../support/kernels';
import { describeKernelBuilds } from './build-checks';

describeKernelBuilds([
  ...listKernels('detection'),
  ...listKernels('delinearization'),
  ...listKernels('delicm'),
]);

describe('category promises', () => {
  test('the four DeLICM forms compute the same sums of products', () => {
    const outputs = [1, 2, 3, 4].map((n) => runKernel(buildKernel(`delicm-listing${n}`, { flags: ['-O3'] }), ['13', '17']));
    expect(new Set(outputs).size).toBe(1);
  });

  test('every kernel has a noinline kernel function and a main', () => {
    for (const kernel of listKernels()) {
      const names = kernel.functions.map((f) => f.name);
      expect({ kernel: kernel.name, hasKernel: kernel.functions.some((f) => f.isKernel) }).toEqual({
        kernel: kernel.name,
        hasKernel: true,
      });
      // delicm-listing* take their main from delicm-main.h.
      if (kernel.category !== 'delicm') expect({ kernel: kernel.name, names }).toEqual({ kernel: kernel.name, names: expect.arrayContaining(['main']) });
    }
  });

  test('the catalogue is the one the issues name', () => {
    const names = listKernels().map((k) => k.name);
    for (const wanted of ['gemm', '2mm', '3mm', 'atax', 'bicg', 'mvt', 'gemver', 'gesummv', 'syrk', 'syr2k', 'trmm', 'lu',
      'covariance', 'correlation', 'jacobi-1d', 'jacobi-2d', 'heat-3d', 'fdtd-2d', 'seidel-2d', 'adi', 'doitgen']) {
      expect(findKernel(wanted).category).toBe('polybench');
    }
    expect(names).toEqual(expect.arrayContaining(['detect-triangular', 'detect-data-dependent', 'detect-printf',
      'detect-unsigned', 'detect-linked-list', 'delin-set-subarray', 'delin-listing5', 'delin-stencil-alpha',
      'delin-resize', 'delin-reg-detect', 'delin-edge-detect']));
  });
});

// The checks every kernel must pass, shared by the *.test.ts files that split the kernels
// between jest workers: warning-free builds in every variant, identical output across
// variants and optimization levels (a sanitized build included), and output that follows the
// size arguments.
import { buildKernel, runKernel, type KernelBuildOptions, type KernelInfo } from '../support/kernels';

const warningsAreErrors = ['-Wall', '-Wextra', '-Werror'];
const sanitized: KernelBuildOptions = {
  flags: ['-O1', '-fsanitize=address,undefined', '-fno-sanitize-recover=all', ...warningsAreErrors],
};

interface Variant {
  label: string;
  options: KernelBuildOptions;
}

/** The builds of one kernel whose outputs must all be identical. */
export function variantsOf(kernel: KernelInfo): Variant[] {
  const variants: Variant[] = [];
  for (const vla of kernel.hasVla ? [false, true] : [false]) {
    const layout = vla ? 'vla' : 'flat';
    variants.push(
      { label: `clang-14 -O0 ${layout}`, options: { flags: ['-O0', ...warningsAreErrors], vla } },
      { label: `clang-14 -O3 ${layout}`, options: { flags: ['-O3', ...warningsAreErrors], vla } },
      { label: `gcc -O3 ${layout}`, options: { cc: 'gcc', flags: ['-O3', ...warningsAreErrors], vla } },
    );
  }
  variants.push(
    { label: 'clang-14 -O3 flat restrict', options: { flags: ['-O3', ...warningsAreErrors], restrict: true } },
    // Out-of-bounds accesses and undefined behaviour abort the run (and so fail the comparison).
    { label: 'clang-14 -O1 flat address+undefined sanitizers', options: sanitized },
  );
  return variants;
}

export function describeKernelBuilds(kernels: readonly KernelInfo[]): void {
  test('there are kernels to check', () => {
    expect(kernels.length).toBeGreaterThan(0);
  });

  describe.each(kernels.map((k) => [k.name, k] as const))('%s', (_name, kernel) => {
    test('builds warning-free in every variant and prints the same in all of them', () => {
      const outputs = variantsOf(kernel).map((v) => ({
        label: v.label,
        output: runKernel(buildKernel(kernel.name, v.options)),
      }));
      const reference = outputs[0]!;
      expect(reference.output).toMatch(/^\w+: n=\d+ sum=\S+ wsum=\S+$/m);
      for (const o of outputs.slice(1)) {
        // The label in the message says which build disagrees.
        expect({ build: o.label, output: o.output }).toEqual({ build: o.label, output: reference.output });
      }
    });

    test('its declared default sizes are its defaults, and other sizes change the output', () => {
      const exe = buildKernel(kernel.name, { flags: ['-O3', ...warningsAreErrors] });
      const byDefault = runKernel(exe);
      expect(kernel.args.length).toBeGreaterThan(0);
      expect(runKernel(exe, kernel.args)).toBe(byDefault);
      expect(kernel.altArgs.length).toBeGreaterThan(0);
      const alternative = runKernel(exe, kernel.altArgs);
      expect(alternative).not.toBe(byDefault);
      expect(runKernel(buildKernel(kernel.name, sanitized), kernel.altArgs)).toBe(alternative);
    });
  });
}

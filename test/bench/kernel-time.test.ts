// The bench times our kernels by the CPU time inside their kernel calls (test/kernels/kernel.h,
// -DTSOPT_TIME): that build prints exactly what the default build prints, then one line with
// the seconds; the default build, which the end-to-end tests compare with clang's, prints no
// time. Every kernel's main wraps each kernel call in TIME_KERNEL, so no call goes untimed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildKernel, listKernels, runKernel } from '../support/kernels';
import { kernelsDir } from '../support/tools';

const flags = ['-O3', '-Wall', '-Wextra', '-Werror'];
const kernels = listKernels();

test.each(kernels.map((k) => [k.name, k] as const))('%s: the -DTSOPT_TIME build prints the same and then a positive kernel time', (_name, kernel) => {
  const plain = runKernel(buildKernel(kernel.name, { flags }), kernel.args);
  expect(plain).not.toMatch(/kernel-seconds/);
  const timed = runKernel(buildKernel(kernel.name, { flags: [...flags, '-DTSOPT_TIME'] }), kernel.args);
  expect(timed.startsWith(plain)).toBe(true);
  const last = timed.slice(plain.length);
  expect(last).toMatch(/^kernel-seconds: \d+\.\d{9}\n$/);
  expect(Number(last.split(' ')[1])).toBeGreaterThan(0);
});

/** `text` without the spans `TIME_KERNEL( … )` (balanced parentheses). */
function withoutTimedCalls(text: string): { rest: string; timed: number } {
  let rest = '';
  let timed = 0;
  let at = 0;
  for (let k = text.indexOf('TIME_KERNEL('); k >= 0; k = text.indexOf('TIME_KERNEL(', at)) {
    rest += text.slice(at, k);
    let depth = 0;
    let end = k + 'TIME_KERNEL'.length;
    do {
      if (text[end] === '(') depth++;
      else if (text[end] === ')') depth--;
      end++;
    } while (depth > 0 && end < text.length);
    at = end;
    timed++;
  }
  return { rest: rest + text.slice(at), timed };
}

test.each(kernels.map((k) => [k.name, k] as const))('%s: main calls its kernels only inside TIME_KERNEL', (_name, kernel) => {
  const source = fs.readFileSync(kernel.path, 'utf8');
  // The delicm listings share their main (delicm-main.h), which calls the kernel as SUM_OF_PRODUCTS.
  const shared = /#include "(delicm-main\.h)"/.exec(source);
  const main = shared ? fs.readFileSync(path.join(kernelsDir, shared[1]!), 'utf8') : source.slice(source.indexOf('int main('));
  const names = [...source.matchAll(/^KERNEL\s[^(]*?\b(\w+)\s*\(/gm)].map((m) => m[1]!);
  if (shared) names.push('SUM_OF_PRODUCTS');
  expect(names.length).toBeGreaterThan(0);
  const { rest, timed } = withoutTimedCalls(main);
  expect(timed).toBeGreaterThan(0);
  for (const name of names) expect({ name, untimed: new RegExp(`\\b${name}\\s*\\(`).test(rest) }).toEqual({ name, untimed: false });
});

// A variant that compiles one language only records `n/a` for programs in the other (issue 22):
// the bare pipe (C only) on a C++ program, which it used to report as a compile error.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runSuite, standardVariants, type Program } from '../../bench/harness';
import { tempDir } from '../support/tools';

const work = tempDir('tsopt-bench-na-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

test('the pipe on a C++ program is n/a, not a compile error; clang builds and runs it', () => {
  const source = path.join(work, 'hello.cpp');
  fs.writeFileSync(source, '#include <cstdio>\nint main() { std::printf("sum=%d\\n", 42); std::printf("0.001\\n"); return 0; }\n');
  const program: Program = {
    name: 'hello', cxx: true, sources: [source], flags: ['-O1'], checkFlags: [], timeFlags: [], checkArgs: [], timeArgs: [],
    libs: [], checkStream: 'stdout', timing: 'printed',
  };
  const variants = standardVariants().filter((v) => v.name === 'clang' || v.name === 'pipe');
  expect(variants.find((v) => v.name === 'pipe')?.only).toBe('c');
  const result = runSuite('na', [program], { variants, repeat: 1, tolerance: { relative: 0, absolute: 0 }, work, progress: () => undefined, checkCost: false });
  const got = result.programs[0]!.variants;
  expect(got.clang?.status).toBe('ok');
  expect(got.pipe).toEqual({ status: 'n/a', detail: 'pipe compiles C only', times: [] });
  expect(fs.existsSync(path.join(work, 'na', 'hello.pipe.check'))).toBe(false);
}, 120_000);

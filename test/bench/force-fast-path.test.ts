// `force-fast-path` (the check-cost measurement's second build, bench/check-cost.ts): after
// versioning, each check's branch reads an opaque `true` (a volatile load), the slow path stays.
import * as path from 'node:path';
import { parsePipeCommand } from '../../bench/pipe-cc';
import { compileToIr, repoRoot } from '../support/tools';
import { tsopt } from '../cli/tsopt-binary';

const input = compileToIr(path.join(repoRoot, 'test', 'cli', 'fixtures', 'vectorized.c'), ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-fno-unroll-loops']);

test("every versioned SCoP's check branch reads the forced flag; the check and the slow path remain until opt", () => {
  const r = tsopt(['--passes=versioning,force-fast-path', '--no-post', '-S', '--stats'], input);
  expect(r.status).toBe(0);
  expect(r.stderr).toContain('tsopt: stat: force-fast-path.forced = 3\n');
  const text = r.stdout.toString();
  expect(text).toContain('@tsopt.force.fast.path = internal global i1 true, align 1\n');
  const branches = [...text.matchAll(/%(\S+) = load volatile i1, i1\* @tsopt\.force\.fast\.path, align 1\n\s+br i1 %\1, label %tsopt\.scop(\d)\.fast, label %(\S+)/g)];
  expect(branches.map((m) => m[2]).sort()).toEqual(['0', '1', '2']);
  // The slow paths are still branched to (the original loops).
  for (const m of branches) expect(text).toContain(`\n${m[3]}:`);
});

test('without versioning there is nothing to force', () => {
  const r = tsopt(['--passes=force-fast-path', '--no-post', '-S', '--stats'], input);
  expect(r.status).toBe(0);
  expect(r.stderr).toContain('tsopt: stat: force-fast-path.forced = 0\n');
  expect(r.stdout.toString()).not.toContain('tsopt.force.fast.path');
});

test("the pipe driver splits a compiler command into clang's flags, sources, output and libraries", () => {
  expect(parsePipeCommand(['-O3', '-march=native', '-Ik', '-DX=1', 'a.c', 'b.c', '-o', 'prog', '-lm', '-L/x'])).toEqual({
    flags: ['-O3', '-march=native', '-Ik', '-DX=1'], sources: ['a.c', 'b.c'], output: 'prog', libs: ['-lm', '-L/x'],
  });
  expect(() => parsePipeCommand(['-O3', '-o', 'prog'])).toThrow('no C source given');
});

// tscc as a drop-in clang-14: our kernels through the tsopt pipeline print what clang -O3's
// builds print; everything that is not a compile passes through to clang-14 unchanged; a tsopt
// failure falls back to clang-14 with one warning line (or fails under TSCC_STRICT=1).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kernelsDir, tempDir } from '../support/tools';
import { tsccOnPath } from './support';

const { env } = tsccOnPath();
const dir = tempDir('tscc-test-');

function sh(cmd: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}, input?: string) {
  const r = spawnSync(cmd, args, { cwd: dir, env: { ...env, ...extraEnv }, input, encoding: 'utf8' });
  if (r.error) throw r.error;
  return r;
}

function ok(cmd: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}, input?: string) {
  const r = sh(cmd, args, extraEnv, input);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stderr}`);
  return r;
}

beforeAll(() => {
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src', 'sum.c'), '#include "sum.h"\nint sum(const int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }\n');
  fs.writeFileSync(path.join(dir, 'src', 'sum.h'), 'int sum(const int *a, int n);\n');
  fs.writeFileSync(path.join(dir, 'src', 'main.c'), '#include <stdio.h>\n#include "sum.h"\nint main(void) { int a[100]; for (int i = 0; i < 100; i++) a[i] = i * VALUE; printf("%d\\n", sum(a, 100)); return 0; }\n');
});

describe('tscc compiles our kernels like clang-14 -O3', () => {
  test.each(['gemm', 'atax', 'jacobi-2d'])('%s prints the same results', (kernel) => {
    const src = path.join(kernelsDir, `${kernel}.c`);
    ok('clang-14', ['-O3', '-march=native', `-I${kernelsDir}`, src, '-o', `${kernel}.clang`, '-lm']);
    const t = ok('tscc', ['-O3', '-march=native', `-I${kernelsDir}`, src, '-o', `${kernel}.tscc`, '-lm']);
    expect(t.stderr).not.toMatch(/tsopt failed/);
    const expected = ok(path.join(dir, `${kernel}.clang`), []).stdout;
    expect(expected.length).toBeGreaterThan(0);
    expect(ok(path.join(dir, `${kernel}.tscc`), []).stdout).toBe(expected);
  });
});

describe('pass-through and command shapes', () => {
  test('-E prints what clang-14 -E prints', () => {
    const args = ['-E', '-DVALUE=3', 'src/main.c'];
    expect(ok('tscc', args).stdout).toBe(ok('clang-14', args).stdout);
  });

  test('-S writes assembly of the optimized code', () => {
    ok('tscc', ['-O2', '-S', 'src/sum.c', '-o', 'sum.s']);
    const asm = fs.readFileSync(path.join(dir, 'sum.s'), 'utf8');
    expect(asm).toMatch(/^sum:/m);
    expect(asm).not.toMatch(/target triple|define /); // assembly, not IR
  });

  test('-MD writes the .d file clang-14 writes (same target and path)', () => {
    fs.mkdirSync(path.join(dir, 'obj'), { recursive: true });
    ok('clang-14', ['-O2', '-MD', '-c', 'src/sum.c', '-o', 'obj/sum.o']);
    const expected = fs.readFileSync(path.join(dir, 'obj', 'sum.d'), 'utf8');
    fs.rmSync(path.join(dir, 'obj', 'sum.d'));
    ok('tscc', ['-O2', '-MD', '-c', 'src/sum.c', '-o', 'obj/sum.o']);
    expect(fs.readFileSync(path.join(dir, 'obj', 'sum.d'), 'utf8')).toBe(expected);
    expect(expected).toMatch(/^obj\/sum\.o: src\/sum\.c src\/sum\.h/);
    // -MMD -MF -MT as well, without -o.
    ok('tscc', ['-O2', '-MMD', '-MF', 'custom.d', '-MT', 'my-target', '-c', 'src/sum.c']);
    expect(fs.readFileSync(path.join(dir, 'custom.d'), 'utf8')).toMatch(/^my-target: src\/sum\.c src\/sum\.h/);
  });

  test('compile, then link-only; and several sources compiled and linked in one command', () => {
    ok('tscc', ['-O2', '-c', 'src/sum.c', '-o', 'sum.o']);
    ok('tscc', ['-O2', '-DVALUE=2', '-c', 'src/main.c', '-o', 'main.o']);
    ok('tscc', ['sum.o', 'main.o', '-o', 'linked']);
    expect(ok(path.join(dir, 'linked'), []).stdout).toBe('9900\n');
    ok('tscc', ['-O3', '-DVALUE=1', 'src/sum.c', 'src/main.c', '-o', 'multi', '-lm', '-Wl,--as-needed']);
    expect(ok(path.join(dir, 'multi'), []).stdout).toBe('4950\n');
    // -c with several sources and no -o: one object per source, named like clang names them.
    fs.rmSync(path.join(dir, 'sum.o'));
    ok('tscc', ['-O2', '-DVALUE=1', '-c', 'src/sum.c', 'src/main.c']);
    expect(fs.existsSync(path.join(dir, 'sum.o')) && fs.existsSync(path.join(dir, 'main.o'))).toBe(true);
  });

  test('stdin with -x c', () => {
    ok('tscc', ['-O2', '-x', 'c', '-', '-o', 'fromstdin'], {}, 'int main(void) { return 3; }\n');
    expect(sh(path.join(dir, 'fromstdin'), []).status).toBe(3);
  });

  test('unknown flags: clang-14 decides (its error, or its behaviour)', () => {
    const bad = sh('tscc', ['-O2', '-frobnicate', '-c', 'src/sum.c']);
    const ref = sh('clang-14', ['-O2', '-frobnicate', '-c', 'src/sum.c']);
    expect(bad.status).toBe(ref.status);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain("unknown argument: '-frobnicate'");
    // Flags tscc has no table entry for still reach clang (here: a warning flag and a codegen flag).
    const r = ok('tscc', ['-O2', '-Wno-unused-command-line-argument', '-fno-omit-frame-pointer', '-c', 'src/sum.c', '-o', 'fp.o']);
    expect(r.stderr).toBe('');
  });

  test.each([['--version'], ['-v'], ['-V'], ['-qversion'], ['-print-prog-name=ld'], ['-dumpmachine']])(
    'configure probe %s answers as clang-14 does', (flag) => {
      const t = sh('tscc', [flag]);
      const c = sh('clang-14', [flag]);
      expect(t.status).toBe(c.status);
      // --version: clang's text as it is, then one line of tscc's (tsopt, LLVM and isl versions).
      if (flag === '--version') {
        expect(t.stdout.slice(0, c.stdout.length)).toBe(c.stdout);
        expect(t.stdout.slice(c.stdout.length)).toMatch(/^tscc: tsopt \S+ \(LLVM 14\.[^)]*, isl [^)]*\)\n$/);
      } else {
        expect(t.stdout).toBe(c.stdout);
      }
    },
  );
});

describe('when tsopt fails', () => {
  // A report tsopt cannot write fails tsopt on this file (a bad flag would fail every compile: build-systems.test.ts).
  const unwritable = '--report=/nonexistent/r.json';
  const line = /^tscc: warning: tsopt failed on src\/sum\.c: cannot write \/nonexistent\/r\.json: no such directory; compiling with clang-14 \(TSCC_STRICT=1 makes this an error: the setting for CI\)$/m;

  test('one warning line, and the file is compiled with plain clang-14', () => {
    const r = ok('tscc', ['-O2', '-c', 'src/sum.c', '-o', 'fallback.o'], { TSOPT_FLAGS: unwritable });
    expect(r.stderr).toMatch(line);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.readFileSync(path.join(dir, 'fallback.o')).subarray(1, 4).toString()).toBe('ELF');
  });

  test('TSCC_STRICT=1 makes it an error', () => {
    fs.rmSync(path.join(dir, 'strict.o'), { force: true });
    const r = sh('tscc', ['-O2', '-c', 'src/sum.c', '-o', 'strict.o'], { TSOPT_FLAGS: unwritable, TSCC_STRICT: '1' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^tscc: error: tsopt failed on src\/sum\.c: cannot write \/nonexistent\/r\.json/m);
    expect(fs.existsSync(path.join(dir, 'strict.o'))).toBe(false);
  });
});

// `--builds DIR`: an executable is reused only while its build is the same (command, sources,
// toolchain digest); a changed source or toolchain builds again, a failed build leaves nothing
// to reuse.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildOrReuse, parseVariant, type Program } from '../../bench/harness';
import { notInBuilds, treeDigest } from '../../bench/build-cache';
import { tempDir } from '../support/tools';

const work = tempDir('tsopt-bench-builds-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

test('a build is reused until its source, flags or toolchain change', () => {
  const source = path.join(work, 'p.c');
  fs.writeFileSync(source, '#include <stdio.h>\nint main(void) { printf("1\\n"); return 0; }\n');
  const program: Program = {
    name: 'p', cxx: false, sources: [source], flags: ['-O1'], checkFlags: [], timeFlags: [], checkArgs: [], timeArgs: [],
    libs: [], checkStream: 'stdout', timing: 'printed',
  };
  const clang = parseVariant('c=clang-14');
  const exe = path.join(work, 'p.exe');
  const tools = path.join(work, 'tools');
  fs.mkdirSync(tools);
  fs.writeFileSync(path.join(tools, 'a.js'), 'one');
  const digest = treeDigest([tools]);
  expect(buildOrReuse(clang, program, [], exe, [], digest)).toBeUndefined();
  expect(buildOrReuse(clang, program, [], exe, [], digest)).toBe('reused');
  // Other flags: another build.
  expect(buildOrReuse(clang, program, ['-DX'], exe, [], digest)).toBeUndefined();
  expect(buildOrReuse(clang, program, ['-DX'], exe, [], digest)).toBe('reused');
  // The toolchain rebuilt (a file of it changed): another build.
  fs.writeFileSync(path.join(tools, 'a.js'), 'two!');
  const digest2 = treeDigest([tools]);
  expect(digest2).not.toBe(digest);
  expect(buildOrReuse(clang, program, ['-DX'], exe, [], digest2)).toBeUndefined();
  // A changed source that no longer compiles: the error, and the old executable is not reused after it.
  fs.writeFileSync(source, 'int main(void) { return x; }\n');
  expect(buildOrReuse(clang, program, ['-DX'], exe, [], digest2)).toMatch(/error/);
  fs.writeFileSync(source, '#include <stdio.h>\nint main(void) { printf("1\\n"); return 0; }\n');
  expect(buildOrReuse(clang, program, ['-DX'], exe, [], digest2)).toBeUndefined();
  expect(buildOrReuse(clang, program, ['-DX'], exe, [], digest2)).toBe('reused');
}, 120_000);

test("the digest leaves out dist's tests and the bench's own code, not the pipe's compiler", () => {
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'tsopt-dist-'));
  try {
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dist, rel)), { recursive: true });
      fs.writeFileSync(path.join(dist, rel), text);
    };
    for (const f of ['cli/tscc.js', 'bench/harness.js', 'bench/pipe-cc.js', 'test/a.test.js']) write(f, 'one');
    const digest = () => treeDigest([dist], notInBuilds(dist));
    const before = digest();
    write('bench/harness.js', 'two!');
    write('test/a.test.js', 'two!');
    expect(digest()).toBe(before);
    write('bench/pipe-cc.js', 'two!');
    const pipe = digest();
    expect(pipe).not.toBe(before);
    write('cli/tscc.js', 'two!');
    expect(digest()).not.toBe(pipe);
  } finally {
    fs.rmSync(dist, { recursive: true, force: true });
  }
});

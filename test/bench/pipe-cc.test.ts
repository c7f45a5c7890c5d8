// The pipe driver (bench/pipe-cc.ts): the bench's `pipe` variant as a compiler command.
import { parsePipeCommand } from '../../bench/pipe-cc';

test("the pipe driver splits a compiler command into clang's flags, sources, output and libraries", () => {
  expect(parsePipeCommand(['-O3', '-march=native', '-Ik', '-DX=1', 'a.c', 'b.c', '-o', 'prog', '-lm', '-L/x'])).toEqual({
    flags: ['-O3', '-march=native', '-Ik', '-DX=1'], sources: ['a.c', 'b.c'], output: 'prog', libs: ['-lm', '-L/x'],
  });
  expect(() => parsePipeCommand(['-O3', '-o', 'prog'])).toThrow('no C source given');
});

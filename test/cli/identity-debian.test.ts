// `tsopt --passes=none` is the identity on real C: Debian's zlib, bzip2 and Lua compiled with
// clang-14 -O3 -g come out as llvm-dis-14 prints what went in (the post pipeline runs only when
// --post-pipeline names one; before, opt-14's -O3 clean-ups rewrote zlib's deflate.c).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { debianSource } from '../support/debian-sources';
import { disassemble, normalizeLlvmText, runOk, tempDir } from '../support/tools';
import { tsoptAsync, inParallel } from './tsopt-binary';

const work = tempDir('tsopt-identity-deb-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

test('zlib, bzip2 and Lua at -O3 -g: --passes=none changes nothing', async () => {
  const sources = [
    path.join(debianSource('zlib'), 'deflate.c'),
    path.join(debianSource('bzip2'), 'compress.c'),
    path.join(debianSource('lua5.4'), 'src', 'lvm.c'),
  ];
  // Debian's build generates lua5.4-deb-multiarch.h; a one-line stand-in does here.
  fs.writeFileSync(path.join(work, 'lua5.4-deb-multiarch.h'), '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"\n');
  const inputs = sources.map((src, n) => {
    const bc = path.join(work, `${n}-${path.basename(src, '.c')}.bc`);
    runOk('clang-14', ['-O3', '-g', '-w', '-c', '-emit-llvm', '-DLUA_USE_LINUX', '-D_FILE_OFFSET_BITS=64', `-I${path.dirname(src)}`, `-I${work}`, src, '-o', bc]);
    return bc;
  });
  const results = await inParallel(inputs, 2, (bc) => tsoptAsync(['--passes=none', bc, '-o', `${bc}.out`]));
  inputs.forEach((bc, n) => {
    expect({ input: path.basename(bc), status: results[n].status, stderr: results[n].stderr }).toEqual({ input: path.basename(bc), status: 0, stderr: '' });
    expect(normalizeLlvmText(disassemble(fs.readFileSync(`${bc}.out`)))).toBe(normalizeLlvmText(disassemble(fs.readFileSync(bc))));
  });
}, 300_000);

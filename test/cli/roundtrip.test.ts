// The identity pipeline through the binary: `tsopt --passes=none --no-post k.bc -o k2.bc` gives
// bitcode whose llvm-dis-14 text equals that of k.bc (ignoring the ModuleID line and `; preds`
// comments), on all our kernels, on real multi-thousand-line C from Debian at -O3 -g, and on C++.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { debianSource } from '../support/debian-sources';
import { listKernels } from '../support/kernels';
import { kernelsDir, normalizeLlvmText, tempDir } from '../support/tools';
import { inParallel, runAsync, tsoptAsync } from './tsopt-binary';

const dir = tempDir('tsopt-roundtrip-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Source {
  readonly name: string;
  readonly file: string;
  readonly flags: readonly string[];
}

/** Compiles, runs tsopt's identity pipeline, and returns what differs (undefined when nothing). */
async function roundTrip(src: Source): Promise<string | undefined> {
  const bc = path.join(dir, `${src.name}.bc`);
  const out = path.join(dir, `${src.name}.tsopt.bc`);
  const cc = await runAsync('clang-14', [...src.flags, '-emit-llvm', '-c', src.file, '-o', bc]);
  if (cc.status !== 0) throw new Error(`clang-14 failed on ${src.file}: ${cc.stderr}`);
  const r = await tsoptAsync(['--passes=none', '--no-post', bc, '-o', out]);
  if (r.status !== 0) return `${src.name}: tsopt exited ${r.status ?? r.signal}: ${r.stderr.trim()}`;
  const [before, after] = await Promise.all([bc, out].map((f) => runAsync('llvm-dis-14', [f, '-o', '-'])));
  const a = normalizeLlvmText(before.stdout.toString()).split('\n');
  const b = normalizeLlvmText(after.stdout.toString()).split('\n');
  const firstDiff = a.findIndex((line, i) => line !== b[i]);
  if (firstDiff < 0 && a.length === b.length) return undefined;
  const at = firstDiff < 0 ? Math.min(a.length, b.length) : firstDiff;
  return `${src.name}: line ${at + 1} differs:\n  llvm-dis: ${a[at]}\n  tsopt:    ${b[at]}`;
}

test('our kernels at -O3 -g (and the example as the pipe feeds it): identical text after the identity pipeline', async () => {
  const example = path.join(kernelsDir, 'example.c');
  const sources: Source[] = [
    ...listKernels().map((k) => ({ name: k.name, file: k.path, flags: ['-O3', '-g'] })),
    { name: 'example-g', file: example, flags: ['-O3', '-g'] },
    { name: 'example-novec', file: example, flags: ['-O3', '-fno-vectorize', '-fno-slp-vectorize'] },
  ];
  expect(sources.length).toBeGreaterThan(20);
  const problems = (await inParallel(sources, 2, roundTrip)).filter((p) => p !== undefined);
  expect(problems).toEqual([]);
}, 600_000);

test('real C from Debian (zlib, Lua) at -O3 -g: identical text after the identity pipeline', async () => {
  const zlib = debianSource('zlib');
  const lua = debianSource('lua5.4');
  // Debian's build generates this header (luaconf.h includes it); a one-line stand-in does here.
  fs.writeFileSync(path.join(dir, 'lua5.4-deb-multiarch.h'), '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"\n');
  const luaFlags = ['-O3', '-g', `-I${path.join(lua, 'src')}`, `-I${dir}`];
  const sources: Source[] = [
    { name: 'zlib-deflate', file: path.join(zlib, 'deflate.c'), flags: ['-O3', '-g', `-I${zlib}`] },
    { name: 'zlib-inflate', file: path.join(zlib, 'inflate.c'), flags: ['-O3', '-g', `-I${zlib}`] },
    { name: 'lua-lparser', file: path.join(lua, 'src', 'lparser.c'), flags: luaFlags },
    { name: 'lua-lvm', file: path.join(lua, 'src', 'lvm.c'), flags: luaFlags },
  ];
  for (const s of sources) expect(fs.readFileSync(s.file, 'utf8').split('\n').length).toBeGreaterThan(1500);
  const problems = (await inParallel(sources, 2, roundTrip)).filter((p) => p !== undefined);
  expect(problems).toEqual([]);
}, 600_000);

test('C++ at -O3 -g (ODR-identified debug types): identical text after the identity pipeline', async () => {
  const source = path.join(__dirname, 'fixtures', 'odr-types.cpp');
  const bc = path.join(dir, 'odr-types.probe.bc');
  // The case this pins: the module has ODR-identified types that opt would print `distinct`.
  const cc = await runAsync('clang-14', ['-O3', '-g', '-emit-llvm', '-c', source, '-o', bc]);
  expect(cc.status).toBe(0);
  expect((await runAsync('llvm-dis-14', [bc, '-o', '-'])).stdout.toString()).toMatch(/!DICompositeType\(.*identifier: "_ZTS3BoxIiE"/);
  expect(await roundTrip({ name: 'odr-types', file: source, flags: ['-O3', '-g'] })).toBeUndefined();
}, 300_000);

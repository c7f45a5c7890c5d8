// Round trip of real C: zlib, bzip2 and Lua 5.4 from Debian's sources, compiled with
// clang-14 -O3 -g, as llvm-dis-14 prints the bitcode.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { debianSource } from '../support/debian-sources';
import { runOk, tempDir } from '../support/tools';
import { checkRoundTrips, countLines, type RoundTripCase } from './roundtrip-support';

interface Selection {
  pkg: string;
  /** Directory of the .c files, relative to the source tree. */
  dir: string;
  files: string[];
  flags: string[];
}

function selections(luaInclude: string): Selection[] {
  return [
    { pkg: 'zlib', dir: '.', files: ['deflate.c', 'inflate.c', 'trees.c', 'gzlib.c', 'crc32.c', 'infback.c'], flags: [] },
    {
      pkg: 'bzip2',
      dir: '.',
      files: ['blocksort.c', 'compress.c', 'decompress.c', 'bzlib.c', 'huffman.c', 'bzip2.c'],
      flags: ['-D_FILE_OFFSET_BITS=64'],
    },
    {
      pkg: 'lua5.4',
      dir: 'src',
      files: ['lvm.c', 'lparser.c', 'lcode.c', 'lapi.c', 'ldo.c', 'lgc.c', 'lstrlib.c', 'ltable.c', 'ldebug.c', 'llex.c', 'lauxlib.c'],
      // Debian's build generates lua5.4-deb-multiarch.h; a one-line stand-in does here
      flags: ['-DLUA_USE_LINUX', `-I${luaInclude}`],
    },
  ];
}

describe('IR round trip on Debian C sources at -O3 -g', () => {
  it('round-trips several thousand lines of zlib, bzip2 and Lua', () => {
    const work = tempDir('tsopt-ir-deb-');
    fs.writeFileSync(path.join(work, 'lua5.4-deb-multiarch.h'), '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"\n');
    const cmds: string[] = [];
    const expected: { name: string; source: string }[] = [];
    for (const sel of selections(work)) {
      const root = path.join(debianSource(sel.pkg), sel.dir);
      for (const f of sel.files) {
        const src = path.join(root, f);
        const name = `${sel.pkg.replace(/\W/g, '')}_${f.replace('.c', '')}`;
        const bc = path.join(work, `${name}.bc`);
        // a file that does not compile standalone is skipped (no .ll appears for it)
        cmds.push(
          `clang-14 -O3 -g -w -c -emit-llvm ${sel.flags.join(' ')} -I'${root}' -o '${bc}' '${src}' 2>/dev/null && ` +
            `llvm-dis-14 -o '${path.join(work, name)}.ll' '${bc}'`,
        );
        expected.push({ name, source: src });
      }
    }
    runOk('sh', ['-c', cmds.map((c) => `(${c}) || true`).join('; ')]);
    const cases: RoundTripCase[] = [];
    const compiled: string[] = [];
    for (const e of expected) {
      const ll = path.join(work, `${e.name}.ll`);
      if (!fs.existsSync(ll)) continue;
      cases.push({ name: e.name, text: fs.readFileSync(ll, 'utf8') });
      compiled.push(e.source);
    }
    fs.rmSync(work, { recursive: true, force: true });
    expect(cases.length).toBeGreaterThanOrEqual(15);
    expect(countLines(compiled)).toBeGreaterThan(20_000);
    expect(checkRoundTrips(cases)).toEqual([]);
  });
});

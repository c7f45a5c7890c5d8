// Round trip of our own C and C++ (test/ir/fixtures) at -O0, -O3 and -O3 -g, as clang-14 -S prints it,
// and of hand-written .ll fixtures.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runOk, tempDir } from '../support/tools';
import { checkRoundTrips, type RoundTripCase } from './roundtrip-support';

const fixtures = path.join(__dirname, 'fixtures');
const levels: [string, string[]][] = [
  ['O0', ['-O0']],
  ['O3', ['-O3']],
  ['O3g', ['-O3', '-g']],
];

/** All fixtures at all levels, compiled by one shell loop (clang -S -emit-llvm). */
function compileFixtures(): RoundTripCase[] {
  const out = tempDir('tsopt-ir-fix-');
  const sources = fs.readdirSync(fixtures).filter((f) => /\.(c|cpp)$/.test(f)).sort();
  const cmds: string[] = [];
  const cases: { name: string; file: string }[] = [];
  for (const src of sources) {
    const cc = src.endsWith('.cpp') ? 'clang++-14' : 'clang-14';
    for (const [level, flags] of levels) {
      const name = `${src.replace('.', '_')}_${level}`;
      const file = path.join(out, `${name}.ll`);
      cmds.push(`${cc} ${flags.join(' ')} -S -emit-llvm -o '${file}' '${path.join(fixtures, src)}'`);
      cases.push({ name, file });
    }
  }
  runOk('sh', ['-c', `set -e; ${cmds.join('; ')}`]);
  const result = cases.map((c) => ({ name: c.name, text: fs.readFileSync(c.file, 'utf8') }));
  // hand-written .ll fixtures for syntax clang rarely prints
  for (const ll of fs.readdirSync(fixtures).filter((f) => f.endsWith('.ll')).sort()) {
    result.push({ name: ll.replace('.', '_'), text: fs.readFileSync(path.join(fixtures, ll), 'utf8') });
  }
  fs.rmSync(out, { recursive: true, force: true });
  return result;
}

describe('IR round trip on our C/C++ fixtures', () => {
  const cases = compileFixtures();

  it('covers every fixture at -O0, -O3 and -O3 -g', () => {
    expect(cases.length).toBeGreaterThanOrEqual(13);
    expect(cases.map((c) => c.name)).toContain('exotic_ll');
    // the C++ fixture really has exceptions, and the vector one really has vector code
    const cpp = cases.find((c) => c.name === 'templates_exceptions_cpp_O3')!.text;
    expect(cpp).toMatch(/\binvoke\b/);
    expect(cpp).toMatch(/\blandingpad\b/);
    expect(cases.find((c) => c.name === 'vectors_switch_c_O3')!.text).toMatch(/<8 x float>/);
    expect(cases.find((c) => c.name === 'globals_structs_c_O3')!.text).toMatch(/\balias\b.*@aliased/);
  });

  it('prints what LLVM reads back as the same module, and prints stably', () => {
    expect(checkRoundTrips(cases)).toEqual([]);
  });
});

// The tsopt command through its real binary: flags, streams, errors, logs and reports.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { passRegistry } from '../../passes/registry';
import { compileToIr, disassemble, kernelsDir, normalizeLlvmText, tempDir } from '../support/tools';
import { ONE_LINE_ERROR, tsopt } from './tsopt-binary';

const dir = tempDir('tsopt-cli-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const bitcode = compileToIr(path.join(kernelsDir, 'example.c'), ['-O3', '-fno-vectorize', '-fno-slp-vectorize']);
const input = path.join(dir, 'example.bc');
fs.writeFileSync(input, bitcode);
const inputText = normalizeLlvmText(disassemble(bitcode));

describe('flags', () => {
  test('--help lists every flag and every registered pass', () => {
    const r = tsopt(['--help']);
    expect(r.status).toBe(0);
    const help = r.stdout.toString();
    for (const flag of ['-o', '-S', '--passes', '--post', '--post-pipeline', '--report', '--report-format', '--log-level', '--verify-each', '--version']) {
      expect(help).toContain(flag);
    }
    for (const pass of passRegistry.values()) expect(help).toContain(`  ${pass.name}  `.trimEnd());
    expect(help).toContain(passRegistry.get('verify')?.description);
  });

  test('--version prints the versions of tsopt, LLVM and isl', () => {
    const r = tsopt(['--version']);
    expect(r.status).toBe(0);
    const version = JSON.parse(fs.readFileSync('package.json', 'utf8')).version as string;
    expect(r.stdout.toString()).toMatch(new RegExp(`^tsopt ${version.replace(/\./g, '\\.')} \\(LLVM 14\\.\\d+\\.\\d+, isl 0\\.\\d+(\\.\\d+)?\\)\n$`));
  });

  test('--help lists each pass option once, with the passes that read it', () => {
    const help = tsopt(['--help']).stdout.toString();
    for (const option of new Set([...passRegistry.values()].flatMap((p) => (p.options ?? []).map((o) => o.name)))) {
      expect(help.split(`  --${option}=VALUE\n`)).toHaveLength(2);
    }
  });

  const never = path.join(dir, 'never.bc');
  test.each([
    [['--passes=frobnicate', input, '-o', never], /^tsopt: error: unknown pass 'frobnicate' in --passes \(known: verify[^)]*\)\n$/],
    [['--passes=none,verify', input, '-o', never], /^tsopt: error: 'none' cannot be combined with other passes in --passes=none,verify\n$/],
    [['--passes=verify,,verify', input, '-o', never], /^tsopt: error: empty pass name in --passes=verify,,verify\n$/],
    [['--frobnicate=3', input, '-o', never], /^tsopt: error: unknown option --frobnicate \(see tsopt --help\)\n$/],
    [['--log-level=loud', input, '-o', never], /^tsopt: error: .*log-level.*\n$/],
    [['--report-format=xml', input, '-o', never], /^tsopt: error: .*report-format.*\n$/],
    [[input, input, '-o', never], /^tsopt: error: expected at most one input, got .*example\.bc .*example\.bc\n$/],
  ])('%j is refused with one line', (args, message) => {
    const r = tsopt(args);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(fs.existsSync(never)).toBe(false);
  });
});

describe('bad input: exit 1, one line naming the input, no output file, input untouched', () => {
  const truncated = bitcode.subarray(0, 700);
  const flipped = Buffer.from(bitcode);
  flipped[40] ^= 0xff;
  flipped[41] ^= 0x55;
  const cases: [string, Buffer | undefined][] = [
    ['empty.bc', Buffer.alloc(0)],
    ['random.bc', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251))],
    ['truncated.bc', truncated],
    ['flipped.bc', flipped],
    ['syntax.ll', Buffer.from('define i32 @f() {\n  ret i32 %nope\n}\n')],
    ['unverified.ll', Buffer.from('define i32 @f() {\nentry:\n  br label %b\nb:\n  ret i32 %x\nc:\n  %x = add i32 1, 2\n  br label %b\n}\n')],
    ['missing.bc', undefined],
  ];
  test.each(cases)('%s', (name, bytes) => {
    const file = path.join(dir, name);
    if (bytes) fs.writeFileSync(file, bytes);
    const output = path.join(dir, `${name}.out`);
    const r = tsopt([file, '-o', output]);
    expect(r.signal).toBeNull();
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(ONE_LINE_ERROR);
    expect(r.stderr.startsWith(`tsopt: error: ${file}: `)).toBe(true);
    expect(fs.existsSync(output)).toBe(false);
    expect(fs.readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
    if (bytes) expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });

  test('the same through stdin names <stdin>', () => {
    const r = tsopt(['--no-post'], truncated);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^tsopt: error: <stdin>: invalid bitcode: .+\n$/);
    expect(r.stdout.length).toBe(0);
  });

  test('-o naming the input is refused and the input kept', () => {
    const copy = path.join(dir, 'self.bc');
    fs.writeFileSync(copy, bitcode);
    const r = tsopt([copy, '-o', copy, '--no-post']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^tsopt: error: .*self\.bc: refusing to overwrite the input with the output/);
    expect(fs.readFileSync(copy).equals(bitcode)).toBe(true);
  });
});

describe('streams and formats', () => {
  test('stdin to stdout by default, and with -', () => {
    for (const args of [['--passes=none', '--no-post'], ['-', '-o', '-', '--passes=none', '--no-post']]) {
      const r = tsopt(args, bitcode);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(normalizeLlvmText(disassemble(r.stdout))).toBe(inputText);
    }
  });

  test('-S writes LLVM IR text, exactly what llvm-dis-14 prints for the input', () => {
    const r = tsopt([input, '-S', '--passes=none', '--no-post']);
    expect(r.status).toBe(0);
    expect(r.stdout.toString()).toMatch(new RegExp(`^; ModuleID = '${input}'\n`));
    expect(normalizeLlvmText(r.stdout.toString())).toBe(inputText);
  });

  test('textual IR input works like bitcode', () => {
    const r = tsopt(['--passes=none', '--no-post'], disassemble(bitcode));
    expect(r.status).toBe(0);
    expect(normalizeLlvmText(disassemble(r.stdout))).toBe(inputText);
  });
});

describe('logs and reports', () => {
  test('--log-level=debug shows each pass and its time on stderr, leaving stdout to the bitcode', () => {
    const r = tsopt([input, '--passes=verify,verify', '--verify-each', '--log-level=debug']);
    expect(r.status).toBe(0);
    const passLines = r.stderr.split('\n').filter((l) => l.startsWith('tsopt: debug: pass finished'));
    expect(passLines).toHaveLength(2);
    for (const line of passLines) expect(line).toMatch(/ pass=verify ms=[\d.]+ cpuMs=[\d.]+ preserved=all$/);
    expect(r.stderr).toMatch(/tsopt: debug: post pipeline \(opt-14\) ms=/);
    expect(r.stdout.subarray(0, 4)).toEqual(Buffer.from('BC\xc0\xde', 'latin1'));
  });

  test('--log-format=json gives pino records', () => {
    const r = tsopt([input, '--passes=none', '--no-post', '--log-level=debug', '--log-format=json', '-o', path.join(dir, 'json.bc')]);
    expect(r.status).toBe(0);
    const records = r.stderr.trim().split('\n').map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(records.map((x) => x.msg)).toContain('done');
    expect(records.every((x) => x.level === 20)).toBe(true);
  });

  test('--report writes JSON and text', () => {
    const json = path.join(dir, 'report.json');
    const text = path.join(dir, 'report.txt');
    expect(tsopt([input, '--passes=verify', '--report', json, '-o', path.join(dir, 'r1.bc')]).status).toBe(0);
    const report = JSON.parse(fs.readFileSync(json, 'utf8'));
    expect(report.functions.map((f: { name: string }) => f.name)).toContain('main');
    expect(report.pipeline.input).toBe(input);
    expect(report.pipeline.passes.map((p: { pass: string }) => p.pass)).toEqual(['verify']);
    expect(report.pipeline.post.pipeline).toContain('loop-vectorize');
    expect(tsopt([input, '--passes=none', '--no-post', '--report', text, '--report-format=text', '-o', path.join(dir, 'r2.bc')]).status).toBe(0);
    const lines = fs.readFileSync(text, 'utf8');
    expect(lines).toContain('  passes:\n    (none)\n');
    expect(lines).toContain('  post pipeline: off');
  });
});

describe('output files', () => {
  test('-o /dev/null writes to the device instead of replacing it', () => {
    const r = tsopt([input, '--no-post', '-o', '/dev/null']);
    expect(r.status).toBe(0);
    expect(fs.statSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  test('overwriting an existing output keeps its permissions and leaves no temporary file', () => {
    const out = path.join(dir, 'existing.bc');
    fs.writeFileSync(out, 'old');
    fs.chmodSync(out, 0o640);
    expect(tsopt([input, '--no-post', '-o', out]).status).toBe(0);
    expect(fs.statSync(out).mode & 0o777).toBe(0o640);
    expect(fs.readFileSync(out).subarray(0, 2).toString()).toBe('BC');
    expect(fs.readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
  });
});

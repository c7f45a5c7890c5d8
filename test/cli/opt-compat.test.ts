// tsopt as a user of opt-14 expects it: opt's single-dash spellings, -o without a file refused,
// no output left behind by any failure (an unwritable report included), errors in JSON under
// --log-format=json, --passes=none as the identity, and a pass that breaks the module reported as
// tsopt's bug (exit 2), not the user's.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseModule } from '../../ir';
import { execute, type RunOptions } from '../../cli/run';
import { POST_PIPELINE } from '../../cli/post-pipeline';
import type { ModulePass } from '../../passes/pass';
import { passRegistry } from '../../passes/registry';
import { capturingIo } from '../support/cli-io';
import { compileToIr, disassemble, kernelsDir, normalizeLlvmText, tempDir } from '../support/tools';
import { tsopt } from './tsopt-binary';

const dir = tempDir('tsopt-opt-compat-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const bitcode = compileToIr(path.join(kernelsDir, 'gemm.c'), ['-O3', '-fno-vectorize', '-fno-slp-vectorize', `-I${kernelsDir}`]);
const input = path.join(dir, 'gemm.bc');
fs.writeFileSync(input, bitcode);

describe("opt's spellings", () => {
  test('-passes=versioning -stats -S -o FILE run the pass as --passes would', () => {
    const out = path.join(dir, 'single.ll');
    const r = tsopt(['-passes=versioning', '-stats', '-S', '-o', out, input]);
    expect(r.stderr).toMatch(/^tsopt: stat: versioning\.versioned = [1-9]\d*$/m);
    expect(r.status).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toMatch(/^define .*@kernel_gemm/m);
  });

  test('-O3 is refused with a message saying what tsopt runs instead', () => {
    const r = tsopt(['-O3', input, '-o', path.join(dir, 'never.bc')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^tsopt: error: -O3 is opt's whole optimization pipeline; .*--passes.*\n$/);
    expect(fs.existsSync(path.join(dir, 'never.bc'))).toBe(false);
  });

  test.each([[[input, '-o']], [[input, '-o', '--passes=none']]])('%j: -o without a file is an error, nothing on stdout', (args) => {
    const r = tsopt(args);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('tsopt: error: -o needs a file name (- for stdout)\n');
    expect(r.stdout.length).toBe(0);
  });
});

describe('failures leave no output', () => {
  test('an unwritable --report: exit 1, one line, neither output nor report', () => {
    const out = path.join(dir, 'unwritable.bc');
    const r = tsopt([input, '--report=/nonexistent/r.json', '-o', out]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`tsopt: error: ${input}: cannot write /nonexistent/r.json: no such directory\n`);
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  test('--log-format=json: errors are pino records too', () => {
    const bad = tsopt([input, '--bogus', '--log-format=json', '-o', path.join(dir, 'never.bc')]);
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stderr)).toMatchObject({ level: 50, exitCode: 1, msg: 'unknown option --bogus (see tsopt --help)' });
    const missing = tsopt([path.join(dir, 'missing.bc'), '--log-format', 'json', '-o', path.join(dir, 'never.bc')]);
    expect(missing.status).toBe(1);
    expect(JSON.parse(missing.stderr)).toMatchObject({ level: 50, exitCode: 1, input: path.join(dir, 'missing.bc'), msg: 'cannot read input: no such file' });
    expect(fs.existsSync(path.join(dir, 'never.bc'))).toBe(false);
  });

  // With a post pipeline, opt-14 reads tsopt's printed text itself and its verifier refuses it.
  test.each([[undefined], [POST_PIPELINE]])('a pass that leaves an invalid module is a bug in tsopt: exit 2, one line, no output (post pipeline %s)', (postPipeline) => {
    const breaker: ModulePass = {
      name: 'test-drop-terminator',
      description: 'removes the terminator of the first block of the first definition (test only)',
      run: (m) => {
        const fn = m.functions.find((f) => !f.isDeclaration);
        fn?.blocks[0].instructions.pop();
        return 'none';
      },
    };
    const registry = passRegistry as Map<string, ModulePass>;
    registry.set(breaker.name, breaker);
    try {
      const out = path.join(dir, 'broken.bc');
      const opts: RunOptions = {
        input, output: out, format: 'bc', passes: breaker.name, postPipeline, verifyEach: false, report: undefined,
        passOptions: new Map(), printStats: false, logLevel: 'warn', logFormat: 'text',
      };
      const { io, stderr } = capturingIo();
      expect(execute(opts, io)).toBe(2);
      expect(stderr()).toMatch(/^tsopt: internal error: .*gemm\.bc: tsopt produced an invalid module: .+\n$/);
      expect(fs.existsSync(out)).toBe(false);
    } finally {
      registry.delete(breaker.name);
    }
  });
});

test('--passes=none is the identity: the module as LLVM reads it, no post pipeline', () => {
  const out = path.join(dir, 'none.bc');
  const r = tsopt(['--passes=none', input, '-o', out]);
  expect(r.status).toBe(0);
  expect(normalizeLlvmText(disassemble(fs.readFileSync(out)))).toBe(normalizeLlvmText(disassemble(bitcode)));
  // Asked for by name, the post pipeline still runs (its vectorizers change the module).
  const post = path.join(dir, 'none-post.ll');
  expect(tsopt(['--passes=none', '--post-pipeline=loop-vectorize', input, '-S', '-o', post]).status).toBe(0);
  expect(parseModule(fs.readFileSync(post, 'utf8'), 'none-post.ll').functions.length).toBeGreaterThan(0);
  expect(fs.readFileSync(post, 'utf8')).toMatch(/llvm\.loop\.isvectorized/);
});

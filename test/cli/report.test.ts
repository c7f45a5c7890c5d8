// `tsopt --report`: the SCoP report of the input, what the passes did to each SCoP,
// and the pipeline's timings, through `execute` (the command minus flag parsing) on gemm.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseModule } from '../../ir';
import { readInput } from '../../ir/gateway';
import { parseOptRemarks } from '../../ir/gateway';
import { POST_PIPELINE } from '../../cli/post-pipeline';
import { execute, type RunOptions } from '../../cli/run';
import { mergeReport, reportInput, type CliReport } from '../../cli/pipeline-report';
import { AnalysisManager } from '../../analysis/analysis-manager';
import type { ModulePass } from '../../passes/pass';
import { runPipeline } from '../../passes/pipeline';
import { compileKernelToIr } from '../support/kernels';
import { capturingIo } from '../support/cli-io';
import { tempDir } from '../support/tools';

const dir = tempDir('tsopt-report-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const gemm = path.join(dir, 'gemm.bc');
fs.writeFileSync(gemm, compileKernelToIr('gemm', ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-g']));

function run(extra: Partial<RunOptions>): { status: number; stderr: string } {
  const captured = capturingIo();
  const opts: RunOptions = {
    input: gemm, output: path.join(dir, 'out.bc'), format: 'bc', passes: 'none', postPipeline: undefined, verifyEach: false,
    report: undefined, passOptions: new Map(), printStats: false, logLevel: 'silent', logFormat: 'text', ...extra,
  };
  const status = execute(opts, captured.io);
  return { status, stderr: captured.stderr() };
}

describe('--report on gemm', () => {
  const file = path.join(dir, 'gemm.json');
  let report: CliReport;
  beforeAll(() => {
    const r = run({ passes: 'delicm,versioning', postPipeline: POST_PIPELINE, report: { file, format: 'json' } });
    expect(r).toEqual({ status: 0, stderr: '' });
    report = JSON.parse(fs.readFileSync(file, 'utf8')) as CliReport;
  });

  test("issue 4's fields, for the input's SCoP in kernel_gemm", () => {
    const f = report.functions.find((x) => x.name === 'kernel_gemm')!;
    expect(f.rejected).toEqual([]);
    expect(f.scops).toHaveLength(1);
    const s = f.scops[0]!;
    expect(s.location).toMatch(/^test\/kernels\/gemm\.c:\d+$/);
    expect(s.depth).toBe(3);
    expect(s.statements).toBeGreaterThan(0);
    expect([...s.parameters].sort()).toEqual(['ni', 'nj', 'nk']);
    expect(s.arrays.map((a) => [a.name, a.elementBytes, a.shape])).toEqual([
      ['C', 8, ['*', 'nj']],
      ['A', 8, ['*', 'nk']],
      ['B', 8, ['*', 'nj']],
    ]);
    expect(s.aliasPairs).toEqual([['C', 'A'], ['C', 'B']]);
    expect(s.parallelLoops.length).toBeGreaterThan(0);
    expect(Array.isArray(s.assumptions)).toBe(true);
    expect(typeof s.runtimeCheck).toBe('string');
    for (const f2 of report.functions) for (const x of f2.rejected) expect(Object.keys(x).sort()).toEqual(['cause', 'detail', 'location']);
  });

  test('what the passes did is on that SCoP: the versioning check and its parts, code growth, DeLICM counters, remarks', () => {
    const s = report.functions.find((x) => x.name === 'kernel_gemm')!.scops[0]!;
    expect(s.versioned).toBe(true);
    expect(s.runtimeCheck).toContain('(char *)C');
    const parts = s.runtimeCheckParts as { label: string; c: string }[];
    expect(parts.map((p) => p.label)).toEqual(expect.arrayContaining(['alias(C,A)', 'alias(C,B)']));
    for (const p of parts) expect(s.runtimeCheck).toContain(p.c);
    expect(s.codeGrowth).toBeGreaterThan(0);
    expect(s.delicm).toMatchObject({ mappedScalars: 0, mappedPhis: 0, mappings: [] });
    expect(s.remarks?.find((m) => m.pass === 'versioning')).toMatchObject({ kind: 'applied', message: expect.stringContaining('alias(C,A)') });
    expect(report.pipeline.passes.map((p) => p.pass)).toEqual(['delicm', 'versioning']);
    expect(report.pipeline.stats['versioning.versioned']).toBeGreaterThanOrEqual(1);
    // opt-14's vectorizers said what they vectorized (with -g, at gemm.c's lines).
    expect(report.pipeline.post?.vectorized.length).toBeGreaterThan(0);
    expect(report.pipeline.post?.vectorized.find((v) => v.function === 'kernel_gemm' && v.pass === 'loop-vectorize')).toMatchObject({
      location: expect.stringMatching(/^test\/kernels\/gemm\.c:\d+$/),
      message: expect.stringContaining('vectorized loop'),
    });
    // The pass reused the models the report built before the pipeline.
    expect(report.pipeline.analyses.reused).toBeGreaterThan(0);
  });

  test('--report=- writes the text report to stderr and no file named -', () => {
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const r = run({ report: { file: '-', format: 'text' } });
      expect(r.status).toBe(0);
      expect(r.stderr).toMatch(/^function kernel_gemm: 1 SCoP, 0 rejected regions\n {2}SCoP at test\/kernels\/gemm\.c:\d+: depth 3, /);
      expect(r.stderr).toContain('    may alias: C and A\n');
      expect(r.stderr).toContain('pipeline: ');
      expect(r.stderr).toContain('  post pipeline: off\n');
      expect(fs.existsSync(path.join(dir, '-'))).toBe(false);
    } finally {
      process.chdir(cwd);
    }
  });
});

test('results a pass publishes for a SCoP are merged into that SCoP; others are listed apart', () => {
  const module = parseModule(readInput(fs.readFileSync(gemm), 'gemm.bc'), 'gemm.bc');
  const am = new AnalysisManager();
  const input = reportInput(module, am, { passOptions: new Map(), passes: ['publisher'] });
  const location = input.scops.functions.find((f) => f.name === 'kernel_gemm')!.scops[0]!.location;
  const publisher: ModulePass = {
    name: 'publisher',
    description: 'publishes a check',
    run(_m, ctx) {
      ctx.scopResults.push({ pass: 'publisher', function: 'kernel_gemm', location, fields: { runtimeCheck: 'n > 0', codeGrowth: 7 } });
      ctx.scopResults.push({ pass: 'publisher', function: 'kernel_gemm', location: 'nowhere:1', fields: { codeGrowth: 1 } });
      ctx.remarks.push({ pass: 'publisher', kind: 'applied', function: 'kernel_gemm', location, message: 'did it' });
      return 'all';
    },
  };
  const pipeline = runPipeline(module, [publisher], { am, options: new Map(), log: { debug() {}, info() {}, warn() {} }, verifyEach: false, verify: () => undefined });
  const r = mergeReport(input, pipeline, { input: 'gemm.bc', output: '-', postPipeline: undefined, postMs: undefined, totalMs: 1, optRemarks: [] });
  const s = r.functions.find((f) => f.name === 'kernel_gemm')!.scops[0]!;
  expect(s).toMatchObject({ runtimeCheck: 'n > 0', codeGrowth: 7, remarks: [{ pass: 'publisher', kind: 'applied', message: 'did it' }] });
  expect(r.pipeline.unplacedScopResults).toEqual([{ pass: 'publisher', function: 'kernel_gemm', location: 'nowhere:1', fields: { codeGrowth: 1 } }]);
  expect(r.pipeline.remarks).toEqual([]);
});

test('the report reads the budget options with the passes\' own parsers: an empty or negative value is the same one-line error', () => {
  const module = parseModule(readInput(fs.readFileSync(gemm), 'gemm.bc'), 'gemm.bc');
  for (const [name, passes] of [['scop-max-operations', ['versioning']], ['isl-max-operations', ['versioning']], ['delicm-max-operations', ['delicm']]] as const) {
    for (const value of ['', '-1']) {
      const given = { passOptions: new Map([[name, value]]), passes };
      expect(() => reportInput(module, new AnalysisManager(), given)).toThrow(`--${name} wants a non-negative integer, not '${value}'`);
    }
  }
});

test("opt's YAML remarks: kind, pass, function, location and the message from the top-level Args", () => {
  const yaml = [
    '--- !Passed', 'Pass:            loop-vectorize', 'Name:            Vectorized', "DebugLoc:        { File: 'k.c', Line: 23, Column: 5 }",
    'Function:        kernel', 'Args:', "  - String:          'vectorized loop (vectorization width: '", "  - VectorizationFactor: '2'", "  - String:          ')'",
    '    DebugLoc:        { File: k.c, Line: 9, Column: 1 }', '...',
    '--- !Missed', 'Pass:            slp-vectorizer', 'Name:            NotBeneficial', 'Function:        "main"', 'Args:', "  - String: 'it''s not'", '...', '',
  ].join('\n');
  expect(parseOptRemarks(yaml)).toEqual([
    { kind: 'Passed', pass: 'loop-vectorize', name: 'Vectorized', function: 'kernel', location: 'k.c:23', message: 'vectorized loop (vectorization width: 2)' },
    { kind: 'Missed', pass: 'slp-vectorizer', name: 'NotBeneficial', function: 'main', location: undefined, message: "it's not" },
  ]);
});

// `--report-format=text` is for people: over every kernel in test/kernels, through tsopt's default
// pipeline and post pipeline, the text has no raw JSON, no `* 0` or `+ 0` terms left to simplify,
// and each SCoP's run-time check printed once (the passes refer to it instead of repeating it).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeValue, publishedFieldLines, remarkText } from '../../cli/report-text';
import { compileToIr, kernelsDir, tempDir } from '../support/tools';
import { inParallel, tsoptAsync } from './tsopt-binary';

const dir = tempDir('tsopt-report-text-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const kernels = fs.readdirSync(kernelsDir).filter((f) => f.endsWith('.c')).sort();

/** Problems a person should not meet in the text: each with the line it is on. */
function problems(text: string): string[] {
  const found: string[] = [];
  const checks = [...text.matchAll(/^ {4}run-time check: (.+)$/gm)].map((m) => m[1]!).filter((c) => c.length > 1);
  for (const line of text.split('\n')) {
    if (/[{[]"|":/.test(line)) found.push(`raw JSON: ${line}`);
    if (/[*+] 0(?![\w.])/.test(line)) found.push(`unsimplified term: ${line}`);
  }
  // Each SCoP's check printed once: `run-time check: <it>` on its SCoP's line and nowhere else
  // (the passes' lines name it); a long check is not repeated in any other form either (a
  // longer check of another SCoP may contain it as a part).
  const lines = text.split('\n');
  for (const check of new Set(checks)) {
    const scops = checks.filter((c) => c === check).length;
    const quoted = lines.filter((l) => l.endsWith(`run-time check: ${check}`) || l.includes(`run-time check: ${check};`)).length;
    if (quoted !== scops) found.push(`check quoted on ${quoted} lines for ${scops} SCoP(s): ${check}`);
    if (check.length > 40) {
      const anywhere = lines.filter((l) => l.includes(check) && !(/^ {4}run-time check: /.test(l) && l !== `    run-time check: ${check}`)).length;
      if (anywhere !== scops) found.push(`check printed on ${anywhere} lines for ${scops} SCoP(s): ${check}`);
    }
  }
  return found;
}

test(`the text report of every kernel (${kernels.length}) reads without JSON, zero terms or repeated checks`, async () => {
  expect(kernels.length).toBeGreaterThanOrEqual(30);
  const inputs = kernels.map((k) => {
    const bc = path.join(dir, k.replace(/\.c$/, '.bc'));
    fs.writeFileSync(bc, compileToIr(path.join(kernelsDir, k), ['-O3', '-fno-vectorize', '-fno-slp-vectorize', `-I${kernelsDir}`]));
    return bc;
  });
  const results = await inParallel(inputs, 2, (bc) => tsoptAsync([bc, '-o', `${bc}.out`, `--report=${bc}.txt`, '--report-format=text']));
  let versioned = 0;
  inputs.forEach((bc, n) => {
    expect({ kernel: kernels[n], status: results[n]!.status }).toEqual({ kernel: kernels[n], status: 0 });
    const text = fs.readFileSync(`${bc}.txt`, 'utf8');
    expect({ kernel: kernels[n], problems: problems(text) }).toEqual({ kernel: kernels[n], problems: [] });
    if (/^ {4}versioned: yes$/m.test(text)) versioned++;
  });
  // The report had versioning's fields to print (and so its JSON-shaped ones) for most kernels.
  expect(versioned).toBeGreaterThanOrEqual(kernels.length / 2);
}, 900_000);

describe('published fields in words', () => {
  test('lists, objects, booleans and the vectorized loops', () => {
    expect(describeValue({ model: 12, 'check and AST': 30 })).toBe('model 12, check and AST 30');
    expect(describeValue([])).toBe('(none)');
    expect(describeValue(true)).toBe('yes');
    const lines = publishedFieldLines([
      ['vectorizedLoops', [{ depth: 0, width: 2, by: 'slp' }, { depth: 0, width: 2, by: 'slp' }, { depth: 1, width: 4, by: 'loop-vectorize' }]],
      ['islOperationsBySteps', { model: 5 }],
    ], '1', '  ');
    expect(lines).toEqual(['  vectorized loops: slp: depth 0 (width 2) x2; loop-vectorize: depth 1 (width 4)', '  isl operations by step: model 5']);
  });

  test('the run-time check: named when it is the one printed above, else in parts', () => {
    const parts = [{ label: 'alias(A,B)', c: 'A + 8 <= B || B + 8 <= A' }, { label: 'unsigned', c: 'n >= 0' }];
    const check = '(A + 8 <= B || B + 8 <= A) && (n >= 0)';
    expect(publishedFieldLines([['runtimeCheckParts', parts]], check, '')).toEqual(['run-time check: the one above, in parts alias(A,B), unsigned']);
    expect(publishedFieldLines([['runtimeCheckParts', parts]], 'n >= 0', '')).toEqual([
      'run-time check, in parts:', '  alias(A,B): A + 8 <= B || B + 8 <= A', '  unsigned: n >= 0',
    ]);
    expect(remarkText(`fast path under run-time check: ${check}; parts: alias(A,B), unsigned`, [check])).toBe('fast path under the run-time check above; parts: alias(A,B), unsigned');
    expect(remarkText('fast path under run-time check: 1; parts: (none); code growth: 5', ['1'])).toBe('fast path under no run-time check; code growth: 5');
  });
});

// Issue 16: the assumptions' C is printed by isl's AST builder, which costs zlib inffast.c's
// wrap checks 0.1-0.8 s a print. A set is printed once however often it is asked for: the
// polyhedral hull tried for a complicated condition is often the set itself. Where no hull can be
// taken, a condition of more than three disjuncts is printed without the context (exact, and a
// few ms instead of 0.1-0.7 s).
import * as path from 'node:path';
import { AstBuild, DimType } from 'isl-wasm';
import { parseModule } from '../../ir';
import { AnalysisManager } from '../../analysis/analysis-manager';
import { buildFunctionModels } from '../../polyhedral/analysis';
import { defaultMaxOperations } from '../../polyhedral/build';
import { debianSource } from '../support/debian-sources';
import { compileToIr, disassemble } from '../support/tools';

// tscc's front end on zlib's own flags.
const FRONT = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false'];

test('zlib inflate_fast: each assumption\'s C is printed once, though its complicated conditions ask for the hull too', () => {
  const zlib = debianSource('zlib');
  const ir = disassemble(compileToIr(path.join(zlib, 'inffast.c'), [...FRONT, '-D_LARGEFILE64_SOURCE=1', '-DHAVE_HIDDEN', `-I${zlib}`]));
  const fn = parseModule(ir).functions.find((f) => f.name === 'inflate_fast')!;
  const prints = jest.spyOn(AstBuild.prototype, 'exprFromSet');
  const f = buildFunctionModels(fn, new AnalysisManager(), { maxOperations: defaultMaxOperations });
  try {
    const assumptions = f.models.flatMap((m) => m.assumptions);
    // The copy loops' wrap checks: long disjunctions, so the hull was asked for.
    expect(f.models.length).toBeGreaterThanOrEqual(3);
    const complicated = assumptions.filter((a) => (a.c.match(/\|\|/g) ?? []).length > 2);
    expect(complicated.length).toBeGreaterThanOrEqual(3);
    // Printed once each (before: twice for each complicated one, 15 prints for 9 conditions).
    expect(prints).toHaveBeenCalledTimes(assumptions.filter((a) => a.c !== '0' && a.c !== '1').length);
    // Their places are their own hulls, so no hull is tried and the C only describes the check:
    // printed without the context (cheaper by far), it is the set itself, read back by isl.
    for (const m of f.models) {
      for (const a of m.assumptions.filter((x) => (x.c.match(/\|\|/g) ?? []).length > 2)) {
        const isl = a.c.replace(/&&/g, 'and').replace(/\|\|/g, 'or').replace(/==/g, '=');
        const params = Array.from({ length: a.set.dim(DimType.param) }, (_, k) => a.set.getDimName(DimType.param, k));
        const read = m.ctx.set(`[${params.join(', ')}] -> { : ${isl} }`);
        expect({ c: a.c, equal: read.isEqual(a.set) }).toEqual({ c: a.c, equal: true });
      }
    }
  } finally {
    prints.mockRestore();
    f.dispose();
  }
}, 300_000);

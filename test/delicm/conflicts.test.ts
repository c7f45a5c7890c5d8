// Conflicts are decided exactly: the accumulator is not mapped onto C[i] while the
// loop still reads C[k] (k == i among them), only its value after the loop is; and it
// is mapped when C[i] is read only after the loop. And the pass changes no IR: the module verifies after it.
import * as path from 'node:path';
import { parseModule } from '../../ir';
import { AnalysisManager } from '../../analysis/analysis-manager';
import { buildFunctionModels, defaultDelinearizer } from '../../polyhedral/analysis';
import { defaultMaxOperations } from '../../polyhedral/build';
import { defaultDelicmMaxOperations, runDelicm } from '../../transform/delicm';
import { compileToIr, disassemble, run } from '../support/tools';
import { O3 } from './support';

const fixture = path.join(__dirname, 'fixtures', 'conflicts.c');

describe('conflicts', () => {
  const module = parseModule(disassemble(compileToIr(fixture, O3)), 'conflicts.ll');
  const delicm = (name: string) => {
    const fn = module.functions.find((f) => f.name === name)!;
    const models = buildFunctionModels(fn, new AnalysisManager(), { maxOperations: defaultMaxOperations, delinearize: defaultDelinearizer });
    try {
      expect(models.models).toHaveLength(1);
      const r = runDelicm(models.models[0]!, { maxOperations: defaultDelicmMaxOperations });
      return {
        counters: r.counters,
        mapped: r.mappings.map((m) => m.location),
        scalars: r.model.arrays.filter((a) => a.kind !== 'array').map((a) => a.tupleName),
        scalarDependences: r.model.dependences.raw.scalar.isEmpty(),
      };
    } finally {
      models.dispose();
    }
  };

  test('C[k] read while the sum lives in the loop: the sum stays a scalar; only its final value, live after the last C[k] read, goes to C[i]', () => {
    const r = delicm('reads_target');
    // %76 = phi [%59, %58], [%71, %62]: the sum after the remainder loop, stored to C[i] by %75.
    // Its writes in %62 are dead but in the last iteration, after that iteration's C[k] read.
    expect(r.mapped).toEqual(['MemRef_v76__phi']);
    // The sum's loop-carried PHIs (%26 in the unrolled loop, %64 in the remainder) keep their writes.
    expect(r.scalars).toEqual(expect.arrayContaining(['MemRef_v26__phi', 'MemRef_v64__phi']));
    expect(r.counters.scalarWritesBefore).toBe(10);
    expect(r.counters.scalarWritesAfter).toBe(8);
  });

  test('C[i] read only after the loop: the sum lives in C[i]', () => {
    const r = delicm('reads_after');
    expect(r.counters.scalarWritesAfter).toBe(0);
    expect(r.counters.mappedPhis).toBeGreaterThan(0);
    expect(r.scalarDependences).toBe(true);
  });

  test('tsopt --passes=delicm,print<delicm> --verify-each: the module verifies and prints unchanged', () => {
    const bitcode = compileToIr(fixture, O3);
    const tsopt = path.join(__dirname, '..', '..', 'bin', 'tsopt.js');
    const out = run('node', [tsopt, '--passes=delicm,print<delicm>', '--verify-each', '-S', '--no-post'], bitcode);
    expect(out.status).toBe(0);
    expect(out.stderr).toMatch(/DeLICM at reads_after:%\d+: forwards 0, reloads 0, mapped scalars 0, mapped PHIs \d+, scalar writes in loops \d+ -> 0/);
    const plain = run('node', [tsopt, '--passes=verify', '-S', '--no-post'], bitcode);
    expect(out.stdout.toString()).toBe(plain.stdout.toString());
  });
});

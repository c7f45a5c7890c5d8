// Conflicts are decided exactly: the accumulator is not mapped onto C[i] while the
// loop still reads C[k] (k == i among them), and is mapped when C[i] is read only
// after the loop. And the pass changes no IR: the module verifies after it.
import * as path from 'node:path';
import { parseModule } from '../../ir';
import { AnalysisManager } from '../../passes/analysis-manager';
import { buildFunctionModels, defaultDelinearizer } from '../../polyhedral/analysis';
import { defaultMaxOperations } from '../../polyhedral/build';
import { defaultDelicmMaxOperations, runDelicm } from '../../polyhedral/delicm';
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
      return { counters: r.counters, targets: r.mappings.map((m) => m.target), scalarDependences: r.model.dependences.raw.scalar.isEmpty() };
    } finally {
      models.dispose();
    }
  };

  test('C[k] read while the sum lives in the loop: nothing may go to C, every scalar write stays', () => {
    const r = delicm('reads_target');
    expect(r.targets).toEqual([]);
    expect(r.counters.scalarWritesAfter).toBe(r.counters.scalarWritesBefore);
    expect(r.counters.scalarWritesBefore).toBeGreaterThan(0);
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

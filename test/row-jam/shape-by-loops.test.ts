// `noRowJamNestByLoops` (transform/row-jam.ts) lets DeLICM's row-jam probe skip the shape's flows,
// which read the exact dataflow: it must say "no nest" only where `rowJamShape`, flows and all,
// finds none (ludcmp's and lu's plain models: their chains share the SCoP with another nest),
// and not where the jam has a nest (forward substitution).
import * as path from 'node:path';
import { parseModule } from '../../ir';
import { AnalysisManager } from '../../analysis/analysis-manager';
import { buildFunctionModels, defaultDelinearizer } from '../../polyhedral/analysis';
import { defaultMaxOperations } from '../../polyhedral/build';
import type { FunctionScopModels, ScopModel } from '../../polyhedral/model';
import { NestRefused, noRowJamNestByLoops, rowJamShape } from '../../transform/row-jam';
import { compileToIr, disassemble } from '../support/tools';
import { O3, modelKernel } from '../polyhedral/support';

/** Whether `rowJamShape` finds a nest (reading the flows). */
function shapeFound(m: ScopModel): boolean {
  const shape = rowJamShape(m);
  return typeof shape !== 'string' && !(shape instanceof NestRefused);
}

test.each(['lu', 'gemm', 'atax', 'trmm', 'seidel-2d', 'jacobi-2d', 'doitgen', 'adi', '3mm', 'correlation', 'covariance', 'syr2k'])('%s: no model the loops rule out has a nest of the jam\'s shape', (name) => {
  const k = modelKernel(name, { debug: false });
  try {
    const models = [...k.all.values()].flatMap((f) => f.models);
    expect(models.length).toBeGreaterThan(0);
    for (const m of models) {
      if (noRowJamNestByLoops(m)) expect({ scop: m.location, shape: shapeFound(m) }).toEqual({ scop: m.location, shape: false });
    }
    // lu's kernel: both chains share the SCoP with the other nest, which the loops alone tell.
    if (name === 'lu') {
      expect(k.kernel.models.length).toBe(1);
      expect(noRowJamNestByLoops(k.kernel.models[0]!)).toBe(true);
      expect(rowJamShape(k.kernel.models[0]!)).toBeInstanceOf(NestRefused);
    }
  } finally {
    k.dispose();
  }
}, 300_000);

test('forward substitution: the loops leave the jam its nest, which the flows confirm', () => {
  const source = path.join(__dirname, 'fixtures', 'forward-subst.c');
  const module = parseModule(disassemble(compileToIr(source, O3)), 'forward-subst.ll');
  const am = new AnalysisManager();
  const all: FunctionScopModels[] = module.functions.filter((f) => !f.isDeclaration).map((fn) => buildFunctionModels(fn, am, { maxOperations: defaultMaxOperations, delinearize: defaultDelinearizer }));
  try {
    const kernel = all.find((f) => f.models.some((m) => m.function.name === 'kernel_forward'));
    expect(kernel).toBeDefined();
    const [m] = kernel!.models;
    expect(noRowJamNestByLoops(m!)).toBe(false);
    expect(shapeFound(m!)).toBe(true);
  } finally {
    all.forEach((f) => f.dispose());
  }
}, 300_000);

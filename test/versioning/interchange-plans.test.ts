// The interchange plan is a cached analysis: versioning gemver asks for plans of the plain model
// (is a nest blocked by scalars only?), of DeLICM's (does it interchange?) and again of the one it
// generates from, and each model is planned once.
import { parseModule } from '../../ir';
import { readInput } from '../../ir/gateway';
import { AnalysisManager } from '../../analysis/analysis-manager';
import { passRegistry } from '../../passes/registry';
import { runPipeline } from '../../passes/pipeline';
import * as interchange from '../../transform/interchange';
import type { ScopModel } from '../../polyhedral/model';
import { compileKernelToIr } from '../support/kernels';
import { pipelineFlags } from '../analysis/helpers';

test('versioning gemver plans each SCoP model\'s interchange once, and interchanges from DeLICM\'s model', () => {
  const module = parseModule(readInput(compileKernelToIr('gemver', pipelineFlags), 'gemver.bc'), 'gemver.bc');
  const plan = jest.spyOn(interchange, 'planInterchange');
  const am = new AnalysisManager();
  try {
    const result = runPipeline(module, [passRegistry.get('versioning')!], {
      am, options: new Map(), log: { debug() {}, info() {}, warn() {} }, verifyEach: false, verify: () => undefined,
    });
    const planned = plan.mock.calls.map(([model]) => model as ScopModel);
    expect(planned.length).toBeGreaterThan(0);
    expect(new Set(planned).size).toBe(planned.length);
    const kernel = result.scopResults.filter((r) => r.function === 'kernel_gemver' && r.fields.versioned === true);
    expect(kernel.some((r) => r.fields.fastPathFrom === 'delicm' && (r.fields.interchangedLoops as string[]).length > 0)).toBe(true);
  } finally {
    plan.mockRestore();
    am.clear();
  }
});

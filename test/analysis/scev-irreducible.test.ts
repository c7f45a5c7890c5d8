// Scalar evolution on irreducible control flow: a loop entered in its middle (bzip2's
// BZ2_decompress, whose `case` labels jump into its loops) is no natural loop, so the values it
// carries are phis outside every loop on a cycle. Such a phi, asked again while its own closed
// form is being computed, is an unknown at once, instead of the recursion going round the
// cycle until its depth limit and recomputing each phi of the cycle on every round.
// Checked here by counting computations (never by time), and, end to end, by the program
// tscc builds printing what clang -O3's prints.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scalarEvolutionAnalysis } from '../../analysis';
import { ScalarEvolution } from '../../analysis/scalar-evolution';
import { loopAnalysis } from '../../analysis/loops';
import { scopDetectionAnalysis } from '../../analysis/scop-detection';
import { printScalarEvolution } from '../../passes/analysis-printers';
import { runOk, tempDir } from '../support/tools';
import { tsccOnPath } from '../tscc/support';
import { analyses, compileC, fixturesDir, fn } from './helpers';

const FIXTURE = 'irreducible-state.c';

describe('phis on a cycle of irreducible control flow', () => {
  test('each value is computed a bounded number of times, and the cycle\'s phis are unknowns', () => {
    const f = fn(compileC(FIXTURE), 'decode_state');
    const am = analyses();
    const loops = am.get(loopAnalysis, f);
    const phisOutsideLoops = f.blocks.filter((b) => loops.loopFor(b) === undefined).flatMap((b) => b.instructions.filter((i) => i.opcode === 'phi'));
    // The state machine's loop is no natural loop: its carried values are phis outside every loop.
    expect(phisOutsideLoops.length).toBeGreaterThanOrEqual(5);
    const compute = jest.spyOn(ScalarEvolution.prototype as unknown as { compute(v: unknown): unknown }, 'compute');
    const se = am.get(scalarEvolutionAnalysis, f);
    try {
      const values = f.blocks.flatMap((b) => b.instructions).filter((i) => se.isScevable(i));
      for (const v of values) se.getScev(v);
      // Each value once, and again only where a recurrence's placeholder made it forget.
      expect(compute.mock.calls.length).toBeLessThanOrEqual(2 * values.length);
    } finally {
      compute.mockRestore();
    }
    // The phis that carry acc, pos, cnt, last and flips round the cycle are their own unknowns
    // (a phi after the SCoP's loop, also outside every loop, keeps its closed form).
    const printed = printScalarEvolution(f, am);
    const ownUnknowns = phisOutsideLoops.filter((p) => printed.includes(`  ${se.nameOf(p)} --> ${se.nameOf(p)}\n`));
    expect(ownUnknowns.length).toBeGreaterThanOrEqual(5);
  });

  test('the loop after the state machine is still a SCoP', () => {
    const f = fn(compileC(FIXTURE), 'decode_state');
    const am = analyses();
    const scops = am.get(scopDetectionAnalysis, f);
    expect(scops.scops.length).toBe(1);
  });

  test('tscc builds a program that prints what clang -O3\'s prints', () => {
    const dir = tempDir('scev-irreducible-');
    try {
      const src = path.join(fixturesDir, FIXTURE);
      const { env } = tsccOnPath({ TSCC_STRICT: '1', TSCC_SERVER: '0' });
      const built = spawnSync('tscc', ['-O3', src, '-o', path.join(dir, 'tscc')], { env, encoding: 'utf8' });
      expect(built.stderr).toBe('');
      expect(built.status).toBe(0);
      runOk('clang-14', ['-O3', src, '-o', path.join(dir, 'clang')]);
      for (const args of [[], ['7'], ['1234']]) {
        expect(runOk(path.join(dir, 'tscc'), args).toString()).toBe(runOk(path.join(dir, 'clang'), args).toString());
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});


// What detection hands to the polyhedral model, statement by statement
// (`print<scop-statements>`): loops with trip counts, domains from branch conditions,
// array accesses with their form, and scalar accesses (PHI reads and writes).
import { compileC, fn, analyses } from './helpers';
import { printScops } from '../../passes/analysis-printers';
import { scopDetectionAnalysis } from '../../analysis/scop-detection';
import { printScev } from '../../analysis/scev';
import type { Module } from '../../ir';

let m: Module;
beforeAll(() => {
  m = compileC('statements.c', ['-fno-discard-value-names']);
});

function scopLines(name: string): string[] {
  return printScops(fn(m, name), analyses()).split('\n').map((l) => l.trim());
}

test('a guarded store: the branch condition i < m is in the statement domain (the loop is unrolled by 2)', () => {
  const out = scopLines('guarded');
  expect(out).toContain('loop %for.body depth 1: backedge-taken (-1 + ((zext i32 %n to i64) /u 2)); continue while {2,+,2}<%for.body> ne (2 * ((zext i32 %n to i64) /u 2))');
  expect(out).toContain('Stmt_if_then in [%for.body] when {0,+,2}<nuw><nsw><%for.body> slt (sext i32 %m to i64) && %n ne 1');
  expect(out).toContain('write %B 8B +{0,+,16}<%for.body> (affine)');
  // The remainder iteration runs after the loop, when n is odd.
  expect(out.find((l) => l.startsWith('Stmt_if_then_epil in [] when'))).toBeDefined();
});

test('a reduction kept in a register: PHI writes in the incoming blocks, PHI reads in the phi blocks', () => {
  const out = scopLines('row_sums');
  expect(out).toContain('parameters: [%n, %m]');
  const body = out.indexOf('Stmt_for_body4_us in [%for.cond1.preheader.us, %for.body4.us] when (-1 + (zext i32 %m to i64))<nsw> sge 3');
  expect(body).toBeGreaterThan(0);
  expect(out.slice(body)).toEqual(expect.arrayContaining([
    'read %A 8B +{{0,+,(8 * (zext i32 %m to i64))}<%for.cond1.preheader.us>,+,32}<%for.body4.us> (polynomial)',
    'read phi %acc.022.us',
    'write phi %acc.022.us <- %add5.us.3',
  ]));
  expect(out).toContain('write %s 8B +{0,+,8}<%for.cond1.preheader.us> (affine)');
  // Domains are simplified: (A && c) || (A && !c) is A, so the block after the unrolled loop always runs.
  expect(out).toContain('Stmt_for_cond1_for_cond_cleanup3_crit_edge_us_unr_lcssa in [%for.cond1.preheader.us] when true');
  expect(out).toContain('Stmt_for_body4_us_epil in [%for.cond1.preheader.us, %for.body4.us.epil] when ((zext i32 %m to i64) + (-4 * ((zext i32 %m to i64) /u 4))) ne 0');
  const [scop] = analyses().get(scopDetectionAnalysis, fn(m, 'row_sums')).scops;
  // restrict arguments: nothing to check at run time.
  expect(scop!.aliasPairs).toEqual([]);
  expect(scop!.needsDelinearization).toBe(true);
});

test('a constant-size 2-d global: per-dimension subscripts straight from the GEP', () => {
  const [scop] = analyses().get(scopDetectionAnalysis, fn(m, 'fixed_grid')).scops;
  const access = scop!.statements[0]!.accesses[0]!;
  expect(access.baseName).toBe('@grid');
  expect(access.dimensionSizes!.map(printScev)).toEqual(['32']);
  expect(scopLines('fixed_grid')).toContain('read @grid 8B +{0,+,256}<%for.cond1.preheader> subscripts [{0,+,1}<nuw><nsw><%for.cond1.preheader>][0] (affine)');
});

// Dominators, natural loops and scalar evolution on clang-14 -O3 output of
// fixtures/loops.c (value names kept with -fno-discard-value-names so the
// expected lines read like the C). At -O3 the inner loops are rotated and
// runtime-unrolled: an unrolled body `%for.body4.us` plus a remainder `.epil`.
import { compileC, fn, analyses } from './helpers';
import { printLoops, printScalarEvolution, printDominatorTree, printPostDominatorTree } from '../../passes/analysis-printers';
import { dominatorTreeAnalysis, postDominatorTreeAnalysis } from '../../analysis/dominators';
import { loopAnalysis } from '../../analysis/loops';
import { scalarEvolutionAnalysis } from '../../analysis/scalar-evolution';
import { printScev } from '../../analysis/scev';
import type { Module } from '../../ir';

let m: Module;
beforeAll(() => {
  m = compileC('loops.c', ['-fno-discard-value-names']);
});

function lines(text: string): string[] {
  return text.split('\n').map((l) => l.trim());
}

describe('dominators and loops', () => {
  test('a rotated 2-d nest: guard, preheader, latch, exits, the unrolled inner loop and its remainder', () => {
    const f = fn(m, 'flat2d');
    const am = analyses();
    const out = lines(printLoops(f, am));
    expect(out).toContain(
      'loop %for.cond1.preheader.us depth 1 preheader %for.cond1.preheader.us.preheader latch %for.cond1.for.cond.cleanup3_crit_edge.us' +
      ' exiting [%for.cond1.for.cond.cleanup3_crit_edge.us] exits [%for.cond.cleanup]' +
      ' blocks [%for.cond1.preheader.us, %for.body4.us, %for.cond1.for.cond.cleanup3_crit_edge.us.unr-lcssa, %for.body4.us.epil, %for.cond1.for.cond.cleanup3_crit_edge.us]' +
      ' backedge-taken (-1 + (zext i32 %n to i64))',
    );
    expect(out).toContain(
      'loop %for.body4.us depth 2 preheader none latch %for.body4.us exiting [%for.body4.us] exits [%for.cond1.for.cond.cleanup3_crit_edge.us.unr-lcssa]' +
      ' blocks [%for.body4.us] backedge-taken (-1 + ((zext i32 %m to i64) /u 4))',
    );
    const li = am.get(loopAnalysis, f);
    const [outer] = li.topLevel;
    expect(outer!.children.map((c) => c.headerName)).toEqual(['%for.body4.us', '%for.body4.us.epil']);
    expect(li.all.map((l) => l.depth)).toEqual([1, 2, 2]);
    // The header dominates its loop; the outer latch post-dominates both inner loops.
    const dt = am.get(dominatorTreeAnalysis, f);
    const pdt = am.get(postDominatorTreeAnalysis, f);
    for (const b of outer!.blocks) expect(dt.dominates(outer!.header, b)).toBe(true);
    for (const inner of outer!.children) expect(pdt.dominates(outer!.latch!, inner.header)).toBe(true);
    expect(dt.dominates(outer!.children[0]!.header, outer!.children[1]!.header)).toBe(false);
  });

  test('the dominator tree printer nests blocks under their immediate dominator', () => {
    const f = fn(m, 'countdown');
    const am = analyses();
    const dom = lines(printDominatorTree(f, am));
    expect(dom[0]).toBe('dominator tree for @countdown:');
    expect(dom[1]).toBe('%entry');
    const pdom = printPostDominatorTree(f, am);
    expect(pdom).toContain('%for.cond.cleanup');
  });

  test('a 3-deep nest of `long` loops has three levels and exact trip counts', () => {
    const f = fn(m, 'linear3d');
    const out = lines(printScalarEvolution(f, analyses()));
    expect(out).toContain('loop %for.cond1.preheader.us.us: backedge-taken count is (-1 + %n)');
    expect(out).toContain('loop %for.cond5.preheader.us.us.us: backedge-taken count is (-1 + %m)');
    expect(out).toContain('loop %for.body8.us.us.us: backedge-taken count is (-1 + (%p /u 4))');
    expect(out).toContain('loop %for.body8.us.us.us.epil: backedge-taken count is (-1 + (-4 * (%p /u 4)) + %p)');
  });
});

describe('scalar evolution', () => {
  test('widened IVs, and the subscript A[i*m + j] as a recurrence of recurrences (products of parameters)', () => {
    const out = lines(printScalarEvolution(fn(m, 'flat2d'), analyses()));
    expect(out).toContain('%indvars.iv27 --> {0,+,1}<nuw><nsw><%for.cond1.preheader.us>');
    expect(out).toContain('%arrayidx.us --> {{%A,+,(8 * (zext i32 %m to i64))}<%for.cond1.preheader.us>,+,32}<%for.body4.us>');
    // The unrolled copies: `or %iv, 1` on an IV stepping by 4 is an add.
    expect(out).toContain('%arrayidx.us.1 --> {{(8 + %A),+,(8 * (zext i32 %m to i64))}<%for.cond1.preheader.us>,+,32}<%for.body4.us>');
    // The remainder starts where the unrolled loop stopped: 4 * (m /u 4), also when the guard skipped it.
    expect(out).toContain('%indvars.iv.epil --> {(4 * ((zext i32 %m to i64) /u 4)),+,1}<nuw><nsw><%for.body4.us.epil>');
  });

  test('A[i*m*p + j*p + k]: the byte offset keeps the parametric products delinearization needs', () => {
    const out = lines(printScalarEvolution(fn(m, 'linear3d'), analyses()));
    expect(out).toContain('%arrayidx.us.us.us --> {{{%A,+,(4 * %m * %p)}<%for.cond1.preheader.us.us>,+,(4 * %p)}<%for.cond5.preheader.us.us.us>,+,16}<%for.body8.us.us.us>');
  });

  test('a C99 VLA subscript A[i][j] gives the same form as the hand-linearized one', () => {
    const out = lines(printScalarEvolution(fn(m, 'vla2d'), analyses()));
    expect(out).toContain('%arrayidx6.us --> {{%A,+,(8 * (zext i32 %m to i64))}<%for.cond1.preheader.us>,+,32}<%for.body4.us>');
  });

  test('constant-size arrays: exact trip counts, the unroll factor in the step', () => {
    const out = lines(printScalarEvolution(fn(m, 'fixed2d'), analyses()));
    // i in [1, 99): 98 iterations; j in [2, 200) by 2, unrolled 3 times: 33 iterations.
    expect(out).toContain('loop %for.cond1.preheader: backedge-taken count is 97');
    expect(out).toContain('loop %for.body4: backedge-taken count is 32');
    expect(out).toContain('%arrayidx6 --> {{(16 + @fixed),+,1600}<%for.cond1.preheader>,+,48}<%for.body4>');
  });

  test('a triangular inner loop: its trip count depends on the outer counter (a floor, from unrolling by 2)', () => {
    const out = lines(printScalarEvolution(fn(m, 'triangular'), analyses()));
    expect(out).toContain('loop %for.body4: backedge-taken count is (-1 + ({1,+,1}<nuw><nsw><%for.cond1.preheader> /u 2))');
    expect(out).toContain('%arrayidx --> {{%A,+,8}<%for.cond1.preheader>,+,(16 * (zext i32 %n to i64))}<%for.body4>');
  });

  test('a count-down loop unrolled by 8 exits on an unsigned test we cannot read as signed', () => {
    const f = fn(m, 'countdown');
    const am = analyses();
    const se = am.get(scalarEvolutionAnalysis, f);
    const loops = am.get(loopAnalysis, f).all;
    const byName = new Map(loops.map((l) => [l.headerName, l]));
    expect(printScev(se.backedgeTakenCount(byName.get('%for.body.prol')!))).toBe('(-1 + (zext i32 %n to i64) + (-8 * ((zext i32 %n to i64) /u 8)))');
    const main = se.loopExit(byName.get('%for.body')!);
    expect('cause' in main && main.cause).toBe('unsigned-comparison');
  });
});

// The AST of a tiled 2-D loop nest, printed as C by isl and walked node by node
//
//   for (i = 0; i < N; i++)
//     for (j = 0; j < N; j++)
//   S:  …;
import { AstBuild, AstLoopType, Ctx, formatAstExpr, readAstExpr, readAstNode, Schedule, type AstNodeTree, type ScheduleNode } from 'isl-wasm';

describe('isl-wasm AST generation', () => {
  let ctx: Ctx;
  beforeAll(() => {
    ctx = new Ctx();
  });
  afterAll(() => ctx.dispose());

  /** The band { S[i, j] -> [i, j] } tiled by 32 × 32. */
  function tiledBand(): ScheduleNode {
    const domain = ctx.unionSet('[N] -> { S[i, j] : 0 <= i, j < N }');
    const band = Schedule.fromDomain(domain).getRoot().child(0)
      .insertPartialSchedule(ctx.multiUnionPwAff('[N] -> [{ S[i, j] -> [(i)] }, { S[i, j] -> [(j)] }]'));
    expect(band.bandGetPermutable()).toBe(false);
    return band.bandSetPermutable(1).bandTile(ctx.multiVal(band.bandGetSpace(), [32, 32]));
  }

  const TILED_C = [
    'for (int c0 = 0; c0 < N; c0 += 32)',
    '  for (int c1 = 0; c1 < N; c1 += 32)',
    '    for (int c2 = 0; c2 <= min(31, N - c0 - 1); c2 += 1)',
    '      for (int c3 = 0; c3 <= min(31, N - c1 - 1); c3 += 1)',
    '        S(c0 + c2, c1 + c3);',
    '',
  ].join('\n');

  test('isl prints the tiled nest as C', () => {
    ctx.scope(() => {
      const tiled = tiledBand();
      expect(tiled.bandNMember()).toBe(2);
      expect(tiled.child(0).bandGetPartialSchedule().toStr()).toBe('[N] -> [{ S[i, j] -> [((i) mod 32)] }, { S[i, j] -> [((j) mod 32)] }]');
      const ast = AstBuild.fromContext(ctx.set('[N] -> { : N > 0 }')).nodeFromSchedule(tiled.getSchedule());
      expect(ast.toCStr()).toBe(TILED_C);
    });
  });

  test('the same AST walked node by node', () => {
    const tree = ctx.scope(() => {
      const ast = AstBuild.fromContext(ctx.set('[N] -> { : N > 0 }')).nodeFromSchedule(tiledBand().getSchedule());
      return readAstNode(ast);
    });
    const loops: string[] = [];
    let node: AstNodeTree = tree;
    while (node.kind === 'for') {
      expect(node.iterator.kind).toBe('id');
      loops.push(`${formatAstExpr(node.iterator)} = ${formatAstExpr(node.init)}; ${formatAstExpr(node.cond)}; += ${formatAstExpr(node.inc)}`);
      node = node.body;
    }
    expect(loops).toEqual([
      'c0 = 0; (c0 < N); += 32',
      'c1 = 0; (c1 < N); += 32',
      'c2 = 0; (c2 <= min(31, ((N - c0) - 1))); += 1',
      'c3 = 0; (c3 <= min(31, ((N - c1) - 1))); += 1',
    ]);
    expect(node).toEqual({
      kind: 'user',
      expr: {
        kind: 'op', op: 'call', args: [
          { kind: 'id', name: 'S' },
          { kind: 'op', op: 'add', args: [{ kind: 'id', name: 'c0' }, { kind: 'id', name: 'c2' }] },
          { kind: 'op', op: 'add', args: [{ kind: 'id', name: 'c1' }, { kind: 'id', name: 'c3' }] },
        ],
      },
    });
  });

  test('marks, blocks, ifs and the separate / atomic loop options', () => {
    ctx.scope(() => {
      // { S[i] : 0 <= i < N; T[i] : 0 <= i < M } in one band, then a mark above it.
      const domain = ctx.unionSet('[N, M] -> { S[i] : 0 <= i < N; T[i] : 0 <= i < M }');
      let band = Schedule.fromDomain(domain).getRoot().child(0)
        .insertPartialSchedule(ctx.multiUnionPwAff('[N, M] -> [{ S[i] -> [(i)]; T[i] -> [(i)] }]'));
      const build = AstBuild.fromContext(ctx.set('[N, M] -> { : N >= 0 and M >= 0 }'));

      band = band.bandMemberSetAstLoopType(0, AstLoopType.separate);
      expect(band.bandMemberGetAstLoopType(0)).toBe(AstLoopType.separate);
      const separated = build.nodeFromSchedule(band.getSchedule());
      const separatedTree = readAstNode(separated);
      expect(separatedTree.kind).toBe('block');
      expect(separated.toCStr()).toContain('for (int c0 = 0; c0 < min(N, M); c0 += 1) {');

      const atomic = build.nodeFromSchedule(band.bandMemberSetAstLoopType(0, AstLoopType.atomic).getSchedule());
      const atomicTree = readAstNode(atomic);
      expect(atomicTree.kind).toBe('for');
      if (atomicTree.kind !== 'for') return;
      expect(formatAstExpr(atomicTree.cond)).toBe('(c0 < select((N >= (M + 1)), N, M))');
      expect(atomicTree.body.kind).toBe('block');
      if (atomicTree.body.kind !== 'block') return;
      expect(atomicTree.body.children.map((c) => c.kind)).toEqual(['if', 'if']);

      const marked = band.insertMark(ctx.id('parallel'));
      const markTree = readAstNode(build.nodeFromSchedule(marked.getSchedule()));
      expect(markTree.kind).toBe('mark');
      if (markTree.kind === 'mark') {
        expect(markTree.mark).toBe('parallel');
        expect(markTree.node.kind).toBe('block');
      }
    });
  });

  test('an expression for a run-time check from a pw_aff', () => {
    ctx.scope(() => {
      const build = AstBuild.fromContext(ctx.set('[n, m] -> { : n >= 0 }'));
      const expr = build.exprFromPwAff(ctx.pwAff('[n, m] -> { [(n + m)] : m >= 0; [(n)] : m < 0 }'));
      expect(expr.toCStr()).toBe('m <= -1 ? n : n + m');
      expect(formatAstExpr(readAstExpr(expr))).toBe('select((m <= -1), n, (n + m))');
    });
  });
});

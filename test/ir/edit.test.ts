// Use lists, RAUW, erase, split, clone and the builder; every edited module must pass
// LLVM's verifier (llvm-as-14), and a built function must compute the right thing (lli-14).
import * as path from 'node:path';
import {
  addIncoming,
  buildMinMax,
  printFunction,
  constantFPValue,
  isInstruction,
  eraseInstructions,
  predecessorMap,
  constantsEqual,
  linkageOf,
  buildCountedLoop,
  callAttributes,
  checkModuleInvariants,
  cloneBlocks,
  cloneFunction,
  constInt,
  constFP,
  createBlock,
  debugLocation,
  doubleTy,
  eraseInstruction,
  functionType,
  getFunction,
  getOrInsertFunction,
  i1,
  i32,
  i64,
  i8,
  insertBlockAfter,
  InstFlag,
  IrBuilder,
  IrParseError,
  parseModule,
  pointerTo,
  predecessors,
  printModule,
  replaceAllUsesWith,
  replacePhiIncomingBlock,
  setOperand,
  splitBlock,
  splitEdge,
  successors,
  terminator,
  users,
  type BasicBlock,
  type Instruction,
  type IrFunction,
  type Module,
  type Value,
} from '../../ir';
import { assemble, compileToIr, run } from '../support/tools';

const sumText = `
define i32 @sum(i32* %a, i32 %n) {
entry:
  %cmp = icmp sgt i32 %n, 0
  br i1 %cmp, label %loop, label %exit

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i32 [ 0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds i32, i32* %a, i32 %i
  %v = load i32, i32* %p, align 4
  %s.next = add nsw i32 %s, %v
  %i.next = add nuw nsw i32 %i, 1
  %done = icmp eq i32 %i.next, %n
  br i1 %done, label %exit, label %loop

exit:
  %r = phi i32 [ 0, %entry ], [ %s.next, %loop ]
  ret i32 %r
}
`;

function fnOf(m: Module, name: string): IrFunction {
  const f = getFunction(m, name);
  if (!f) throw new Error(`no @${name}`);
  return f;
}
function blockOf(f: IrFunction, name: string): BasicBlock {
  const b = f.blocks.find((x) => x.name === name);
  if (!b) throw new Error(`no %${name}`);
  return b;
}
function instOf(f: IrFunction, name: string): Instruction {
  for (const b of f.blocks) for (const i of b.instructions) if (i.name === name) return i;
  throw new Error(`no %${name}`);
}

/** Every use record agrees with the operand it describes, in both directions. */
function expectConsistentUseLists(m: Module): void {
  expect(checkModuleInvariants(m)).toEqual([]);
  const check = (user: Extract<Value, { operandUses: unknown }>): void => {
    user.operands.forEach((v, i) => {
      const use = user.operandUses[i]!;
      expect(use.user).toBe(user);
      expect(use.index).toBe(i);
      expect(v.uses[use.slot]).toBe(use);
    });
  };
  for (const f of m.functions) for (const b of f.blocks) for (const i of b.instructions) check(i);
  for (const f of m.functions) {
    const values: Value[] = [...f.args, ...f.blocks, ...f.blocks.flatMap((b) => b.instructions)];
    for (const v of values) v.uses.forEach((u, slot) => {
      expect(u.slot).toBe(slot);
      expect(u.user.operands[u.index]).toBe(v);
    });
  }
}

/** LLVM accepts (parses and verifies) what we print. */
function expectVerifies(m: Module): string {
  const text = printModule(m);
  expect(() => assemble(text)).not.toThrow();
  return text;
}

describe('use lists', () => {
  it('know the users of arguments, instructions and blocks after parsing', () => {
    const m = parseModule(sumText);
    const f = fnOf(m, 'sum');
    const iNext = instOf(f, 'i.next');
    expect(users(iNext).map((u) => (u as Instruction).name).sort()).toEqual(['done', 'i']);
    expect(f.args[0]!.uses).toHaveLength(1);
    const loop = blockOf(f, 'loop');
    expect(predecessors(loop).map((b) => b.name)).toEqual(['entry', 'loop']);
    expect(successors(blockOf(f, 'entry')).map((b) => b.name)).toEqual(['loop', 'exit']);
    expect(terminator(loop)!.opcode).toBe('br');
    expectConsistentUseLists(m);
  });

  it('predecessorMap agrees with predecessors for every block', () => {
    const m = parseModule(sumText);
    const f = fnOf(m, 'sum');
    const map = predecessorMap(f);
    for (const b of f.blocks) expect(map.get(b)).toEqual(predecessors(b));
  });

  it('eraseInstructions deletes a group that uses itself, and refuses outside uses', () => {
    const m = parseModule(sumText);
    const f = fnOf(m, 'sum');
    const p = instOf(f, 'p');
    const v = instOf(f, 'v');
    expect(() => eraseInstructions([p])).toThrow(/still used outside/);
    expect(checkModuleInvariants(m)).toEqual([]); // a refused erase changes nothing
    replaceAllUsesWith(v, constInt(i32, 0));
    eraseInstructions([v, p]);
    expect(f.args[0]!.uses).toHaveLength(0);
    expectConsistentUseLists(m);
    expectVerifies(m);
  });

  it('setOperand moves the use from the old value to the new one', () => {
    const m = parseModule(sumText);
    const f = fnOf(m, 'sum');
    const sNext = instOf(f, 's.next');
    const v = instOf(f, 'v');
    const s = instOf(f, 's');
    setOperand(sNext, 1, s);
    expect(v.uses).toHaveLength(0);
    expect(users(s)).toContain(sNext);
    expectConsistentUseLists(m);
    expect(expectVerifies(m)).toContain('%s.next = add nsw i32 %s, %s');
  });

  it('replaceAllUsesWith then erase removes a value everywhere', () => {
    const m = parseModule(sumText);
    const f = fnOf(m, 'sum');
    const v = instOf(f, 'v');
    const p = instOf(f, 'p');
    replaceAllUsesWith(v, constInt(i32, 1));
    expect(v.uses).toHaveLength(0);
    expect(() => eraseInstruction(p)).toThrow(/still has 1 uses/);
    eraseInstruction(v);
    eraseInstruction(p);
    expect(f.args[0]!.uses).toHaveLength(0);
    expectConsistentUseLists(m);
    const text = expectVerifies(m);
    expect(text).toContain('%s.next = add nsw i32 %s, 1');
    expect(text).not.toContain('load');
  });

  it('replaceAllUsesWith reaches values inside debug-intrinsic metadata operands', () => {
    const m = parseModule(`
declare void @llvm.dbg.value(metadata, metadata, metadata)
define i32 @f(i32 %x) {
  %y = add i32 %x, 1
  call void @llvm.dbg.value(metadata i32 %y, metadata !1, metadata !DIExpression())
  ret i32 %y
}
!1 = !{}
`);
    const f = fnOf(m, 'f');
    const y = f.blocks[0]!.instructions[0]!;
    replaceAllUsesWith(y, f.args[0]!);
    expect(printModule(m)).toContain('call void @llvm.dbg.value(metadata i32 %x, metadata !1');
  });
});

describe('editing the CFG', () => {
  it('splitBlock moves the tail and fixes the successors phis', () => {
    const m = parseModule(sumText);
    const f = fnOf(m, 'sum');
    const loop = blockOf(f, 'loop');
    const sNext = instOf(f, 's.next');
    const tail = splitBlock(loop, loop.instructions.indexOf(sNext), 'loop.tail');
    expect(f.blocks.map((b) => b.name)).toEqual(['entry', 'loop', 'loop.tail', 'exit']);
    expect(sNext.parent).toBe(tail);
    expect(instOf(f, 'r').incomingBlocks!.map((b) => b.name)).toEqual(['entry', 'loop.tail']);
    expect(predecessors(loop).map((b) => b.name)).toEqual(['entry', 'loop.tail']);
    // the loop's own phis now come from the tail block
    replacePhiIncomingBlock(loop, loop, tail);
    expectConsistentUseLists(m);
    expectVerifies(m);
  });

  it('splitEdge puts a block on one edge', () => {
    const m = parseModule(sumText);
    const f = fnOf(m, 'sum');
    const mid = splitEdge(blockOf(f, 'entry'), blockOf(f, 'exit'), 'guard.exit');
    expect(predecessors(blockOf(f, 'exit'))).toContain(mid);
    expectVerifies(m);
  });

  it('cloneBlocks versions a loop behind a run-time check', () => {
    const m = parseModule(sumText);
    const f = fnOf(m, 'sum');
    const entry = blockOf(f, 'entry');
    const loop = blockOf(f, 'loop');
    const exit = blockOf(f, 'exit');
    const map = new Map<Value, Value>();
    const [loopV] = cloneBlocks([loop], map, '.v');
    insertBlockAfter(loop, loopV!);
    // a check block between entry and the two versions
    const check = insertBlockAfter(entry, createBlock('check'));
    const b = new IrBuilder(check);
    const big = b.icmp('sgt', f.args[1]!, constInt(i32, 100), 'big');
    b.condBr(big, loopV!, loop);
    setOperand(terminator(entry)!, 1, check);
    replacePhiIncomingBlock(loop, entry, check);
    replacePhiIncomingBlock(loopV!, entry, check);
    addIncoming(instOf(f, 'r'), map.get(instOf(f, 's.next'))!, loopV!);
    expect(instOf(f, 'i.next').uses).toHaveLength(2); // the clone does not use the original
    expect(map.get(instOf(f, 'i.next'))!.uses).toHaveLength(2);
    expectConsistentUseLists(m);
    const text = expectVerifies(m);
    expect(text).toContain('%s.next.v = add nsw i32 %s.v, %v.v');
    expect(predecessors(exit).map((x) => x.name)).toEqual(['entry', 'loop', 'loop.v']);
  });

  it('cloneFunction copies a function with independent use lists', () => {
    const m = parseModule(sumText);
    const f = fnOf(m, 'sum');
    const g = cloneFunction(f, 'sum.copy');
    expect(m.functions.map((x) => x.name)).toEqual(['sum', 'sum.copy']);
    expect(f.args[0]!.uses).toHaveLength(1);
    expect(g.args[0]!.uses).toHaveLength(1);
    expect(g.args[0]!.uses[0]!.user).not.toBe(f.args[0]!.uses[0]!.user);
    expectConsistentUseLists(m);
    expect(expectVerifies(m)).toContain('define i32 @sum.copy(i32* %a, i32 %n)');
  });
});

describe('IrBuilder', () => {
  it('builds a loop nest that LLVM verifies and that computes the right sum', () => {
    const m = parseModule('');
    const printf = getOrInsertFunction(m, 'printf', functionType(i32, [pointerTo(i8)], true));
    // double @tri(i64 %n): sum over 0 <= i < n, 0 <= j <= i of (i + j) * 0.5
    const fn = getOrInsertFunction(m, 'tri', functionType(doubleTy, [i64]));
    const n = fn.args[0]!;
    n.name = 'n';
    const entry = createBlock('entry');
    const outer = createBlock('outer');
    const inner = createBlock('inner');
    const latch = createBlock('outer.latch');
    const exit = createBlock('exit');
    for (const bl of [entry, outer, inner, latch, exit]) {
      fn.blocks.push(bl);
      bl.parent = fn;
    }
    fn.isDeclaration = false;
    const b = new IrBuilder(entry);
    b.br(outer);
    b.positionAtEnd(outer);
    const i = b.phi(i64, 'i', [[constInt(i64, 0), entry]]);
    const accO = b.phi(doubleTy, 'acc.outer', [[constFP(doubleTy, 0), entry]]);
    b.br(inner);
    b.positionAtEnd(inner);
    const j = b.phi(i64, 'j', [[constInt(i64, 0), outer]]);
    const acc = b.phi(doubleTy, 'acc', [[accO, outer]]);
    const ij = b.add(i, j, 'ij', InstFlag.NoSignedWrap);
    const f = b.cast('sitofp', ij, doubleTy, 'f');
    const half = b.binary('fmul', f, constFP(doubleTy, 0.5), { name: 'half' });
    const accNext = b.binary('fadd', acc, half, { name: 'acc.next' });
    const jNext = b.add(j, constInt(i64, 1), 'j.next', InstFlag.NoSignedWrap | InstFlag.NoUnsignedWrap);
    const innerDone = b.icmp('sgt', jNext, i, 'inner.done');
    b.condBr(innerDone, latch, inner);
    addIncoming(j, jNext, inner);
    addIncoming(acc, accNext, inner);
    b.positionAtEnd(latch);
    const iNext = b.add(i, constInt(i64, 1), 'i.next', InstFlag.NoSignedWrap);
    const outerDone = b.icmp('eq', iNext, n, 'outer.done');
    b.condBr(outerDone, exit, outer);
    addIncoming(i, iNext, latch);
    addIncoming(accO, accNext, latch);
    b.positionAtEnd(exit);
    b.ret(accNext);

    // main prints tri(10)
    const main = getOrInsertFunction(m, 'main', functionType(i32, []));
    const mainEntry = createBlock('entry');
    mainEntry.parent = main;
    main.blocks.push(mainEntry);
    main.isDeclaration = false;
    const fmtText = parseModule('@fmt = private constant [4 x i8] c"%g\\0A\\00"');
    const fmt = fmtText.globals[0]!;
    fmt.parent = m;
    m.globals.push(fmt);
    m.symbols.set('fmt', fmt);
    const mb = new IrBuilder(mainEntry);
    const r = mb.call(fn, [constInt(i64, 10)], 'r');
    const str = mb.gep(fmt.valueType, fmt, [constInt(i64, 0), constInt(i64, 0)], 'str');
    mb.call(printf, [str, r]);
    mb.ret(constInt(i32, 0));

    const text = expectVerifies(m);
    expect(text).toContain('%i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]');
    const out = run('lli-14', ['-'], text);
    expect(out.stderr).toBe('');
    // sum_{i<10} sum_{j<=i} (i+j)/2 = 247.5
    expect(out.stdout.toString().trim()).toBe('247.5');
  });

  it('buildCountedLoop makes a loop nest (matrix-vector product) that runs correctly', () => {
    const m = parseModule(`
@A = global [6 x double] [double 1.0, double 2.0, double 3.0, double 4.0, double 5.0, double 6.0]
@x = global [3 x double] [double 1.0, double 1.0, double 2.0]
@y = global [2 x double] zeroinitializer
@fmt = private constant [7 x i8] c"%g %g\\0A\\00"
declare i32 @printf(i8*, ...)
declare void @mv(double*, double*, double*, i64, i64)
define i32 @main() {
  call void @mv(double* getelementptr ([6 x double], [6 x double]* @A, i64 0, i64 0), double* getelementptr ([3 x double], [3 x double]* @x, i64 0, i64 0), double* getelementptr ([2 x double], [2 x double]* @y, i64 0, i64 0), i64 2, i64 3)
  %y0 = load double, double* getelementptr ([2 x double], [2 x double]* @y, i64 0, i64 0)
  %y1 = load double, double* getelementptr ([2 x double], [2 x double]* @y, i64 0, i64 1)
  call i32 (i8*, ...) @printf(i8* getelementptr ([7 x i8], [7 x i8]* @fmt, i64 0, i64 0), double %y0, double %y1)
  ret i32 0
}
`);
    const mv = fnOf(m, 'mv');
    const [A, x, y, rows, cols] = mv.args;
    const entry = createBlock('entry');
    entry.parent = mv;
    mv.blocks.push(entry);
    mv.isDeclaration = false;
    const b = new IrBuilder(entry);
    buildCountedLoop(b, constInt(i64, 0), rows!, (i) => {
      const yi = b.gep(doubleTy, y!, [i], 'y.i');
      b.store(constFP(doubleTy, 0), yi, 8);
      buildCountedLoop(
        b,
        constInt(i64, 0),
        cols!,
        (j) => {
          const row = b.mul(i, cols!, 'row', InstFlag.NoSignedWrap);
          const idx = b.add(row, j, 'idx', InstFlag.NoSignedWrap);
          const a = b.load(doubleTy, b.gep(doubleTy, A!, [idx], 'a.p'), 'a', 8);
          const xv = b.load(doubleTy, b.gep(doubleTy, x!, [j], 'x.p'), 'xv', 8);
          const prod = b.binary('fmul', a, xv, { name: 'prod' });
          const old = b.load(doubleTy, yi, 'old', 8);
          b.store(b.binary('fadd', old, prod, { name: 'sum' }), yi, 8);
        },
        { name: 'j' },
      );
    }, { name: 'i' });
    b.ret();
    expect(mv.blocks.map((bl) => bl.name)).toEqual([
      'entry', 'i.header', 'i.body', 'j.header', 'j.body', 'j.latch', 'j.exit', 'i.latch', 'i.exit',
    ]);
    expectConsistentUseLists(m);
    const text = expectVerifies(m);
    const out = run('lli-14', ['-'], text);
    expect(out.stderr).toBe('');
    expect(out.stdout.toString().trim()).toBe('9 21');
  });

  it('inserts before an instruction, in order', () => {
    const m = parseModule(sumText);
    const f = fnOf(m, 'sum');
    const ret = terminator(blockOf(f, 'exit'))!;
    const b = new IrBuilder().positionBefore(ret);
    const x = b.mul(ret.operands[0]!, constInt(i32, 3), 'x');
    const y = b.add(x, constInt(i32, 1), 'y');
    const z = buildMinMax(b, m, 'smax', y, constInt(i32, 0), 'z');
    setOperand(ret, 0, z);
    expect(blockOf(f, 'exit').instructions.map((ins) => ins.name ?? ins.opcode)).toEqual(['r', 'x', 'y', 'z', 'ret']);
    const text = expectVerifies(m);
    expect(text).toContain('%z = call i32 @llvm.smax.i32(i32 %y, i32 0)');
    expect(text).toMatch(/declare i32 @llvm\.smax\.i32\(i32, i32\) #0\n/);
    expect(text).toContain('attributes #0 = { nofree nosync nounwind readnone speculatable willreturn }');
    expect(printFunction(f)).toMatch(/^define i32 @sum\(i32\* %a, i32 %n\) \{\nentry:/);
    expect(i1.bits).toBe(1);
  });
});

describe('attributes', () => {
  it('expands attribute groups for call sites and callees', () => {
    const m = parseModule(`
declare double @llvm.fabs.f64(double) #0
declare double @g(double)
define double @f(double %x) {
  %a = call double @llvm.fabs.f64(double %x)
  %b = call double @g(double %a) #1
  ret double %b
}
attributes #0 = { nofree nosync nounwind readnone speculatable willreturn }
attributes #1 = { nounwind readonly allocsize(0) "x"="y z" }
`);
    const [a, bCall] = fnOf(m, 'f').blocks[0]!.instructions;
    expect(callAttributes(a!, m).has('readnone')).toBe(true);
    const attrs = callAttributes(bCall!, m);
    expect([...attrs].sort()).toEqual(['"x"="y z"', 'allocsize(0)', 'nounwind', 'readonly']);
  });
});

describe('values', () => {
  it('compares constants structurally and reads linkage', () => {
    const m = parseModule(`
@g = internal global i32 0
@h = linkonce_odr dso_local global i32 1
define i64 @f() {
  %a = add i64 ptrtoint (i32* getelementptr inbounds (i32, i32* @g, i64 1) to i64), 3
  %b = add i64 ptrtoint (i32* getelementptr inbounds (i32, i32* @g, i64 1) to i64), 3
  %c = add i64 ptrtoint (i32* getelementptr (i32, i32* @g, i64 1) to i64), 4
  ret i64 %a
}
`);
    const [a, b, c] = fnOf(m, 'f').blocks[0]!.instructions;
    expect(a!.operands[0]).not.toBe(b!.operands[0]); // constants are not uniqued...
    expect(constantsEqual(a!.operands[0]!, b!.operands[0]!)).toBe(true); // ...but compare equal
    expect(constantsEqual(a!.operands[0]!, c!.operands[0]!)).toBe(false); // no inbounds
    expect(constantsEqual(a!.operands[1]!, c!.operands[1]!)).toBe(false); // 3 vs 4
    expect(linkageOf(m.symbols.get('g')!)).toBe('internal');
    expect(linkageOf(m.symbols.get('h')!)).toBe('linkonce_odr');
    expect(linkageOf(fnOf(m, 'f'))).toBe('external');
    expect(isInstruction(a, 'add', 'sub')).toBe(true);
    expect(isInstruction(a, 'load')).toBe(false);
  });

  it('reads floating-point constants in both of LLVM\'s spellings', () => {
    const m = parseModule(`
define double @f(float %x) {
  %a = fadd float %x, 0x3FB99999A0000000
  %b = fpext float %a to double
  %c = fmul double %b, -2.500000e-01
  %d = fadd double %c, 0x7FF0000000000000
  ret double %d
}
`);
    const [a, , c, d] = fnOf(m, 'f').blocks[0]!.instructions;
    expect(constantFPValue(a!.operands[1]!)).toBe(Math.fround(0.1));
    expect(constantFPValue(c!.operands[1]!)).toBe(-0.25);
    expect(constantFPValue(d!.operands[1]!)).toBe(Infinity);
    expect(constantFPValue(constFP(doubleTy, 1 / 3))).toBe(1 / 3);
  });
});

describe('names', () => {
  it('prints numeric and duplicate names so LLVM reads them back', () => {
    const m = parseModule(sumText);
    const f = fnOf(m, 'sum');
    instOf(f, 'v').name = '7'; // numeric: becomes an unnamed slot
    instOf(f, 's.next').name = 'p'; // duplicate of %p: made unique
    instOf(f, 'p').name = 'a b'; // needs quotes
    const text = expectVerifies(m);
    expect(text).toContain('%"a b" = getelementptr inbounds i32, i32* %a, i32 %i');
    expect(text).toMatch(/%0 = load i32, i32\* %"a b"/);
    expect(text).toContain('%p = add nsw i32 %s, %0');
  });

  it('finds the invariant violations a careless edit makes', () => {
    const m = parseModule(sumText);
    const f = fnOf(m, 'sum');
    const r = instOf(f, 'r');
    r.incomingBlocks!.pop();
    (instOf(f, 'v').operands as Value[])[0] = f.args[0]!; // behind setOperand's back
    const problems = checkModuleInvariants(m);
    expect(problems.some((p) => /1 blocks/.test(p))).toBe(true);
    expect(problems.some((p) => /missing from its value's use list/.test(p))).toBe(true);
  });
});

describe('debug locations and parse errors', () => {
  const debugLoopsText = (): string =>
    compileToIr(path.join(__dirname, 'fixtures', 'debug_loops.c'), ['-O3', '-g'], true).toString();
  let text = '';
  beforeAll(() => {
    text = debugLoopsText();
  });

  it('clones a function with debug info into one LLVM verifies (debug info dropped from the copy)', () => {
    const m = parseModule(text, 'debug_loops.ll');
    const copy = cloneFunction(fnOf(m, 'gemm'), 'gemm.copy');
    expect(copy.metadata.some((md) => md.name === 'dbg')).toBe(false);
    expect(fnOf(m, 'gemm').metadata.some((md) => md.name === 'dbg')).toBe(true);
    expectConsistentUseLists(m);
    expectVerifies(m);
  });

  it('resolves !dbg to the file and line of the C source', () => {
    const m = parseModule(text, 'debug_loops.ll');
    const gemm = fnOf(m, 'gemm');
    const fmuls = gemm.blocks.flatMap((bl) => bl.instructions).filter((ins) => ins.opcode === 'fmul');
    expect(fmuls.length).toBeGreaterThan(0);
    const locs = fmuls.map((ins) => debugLocation(ins, m)!);
    expect(locs.every((l) => l.file.endsWith('debug_loops.c'))).toBe(true);
    // line 12: c[i][j] *= beta;  line 13: c[i][j] += alpha * a[i][k] * b[k][j];
    expect([...new Set(locs.map((l) => l.line))].sort()).toEqual([12, 13]);
  });

  it('reports line and column of text it cannot read', () => {
    try {
      parseModule('define i32 @f() {\n  %x = frobnicate i32 1\n  ret i32 %x\n}\n', 'bad.ll');
      throw new Error('no error');
    } catch (e) {
      expect(e).toBeInstanceOf(IrParseError);
      expect((e as IrParseError).line).toBe(2);
      expect((e as Error).message).toMatch(/^bad\.ll:2:8: unsupported instruction 'frobnicate'/);
    }
    expect(() => parseModule('define i32 @f() {\n  ret i32 %nope\n}\n')).toThrow(/undefined value %nope/);
  });
});

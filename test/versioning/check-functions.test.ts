// `--rtc-check-functions` (codegen/check-outline.ts) on a hand-written check block: the check's
// computation is copied into a function whose parameters are what it reads from outside, the block
// keeps what the fast path still uses, and a SCoP versioning gives up on takes its function along.
import { eraseInstruction, IrBuilder, parseModule, printModule, terminator, type Instruction } from '../../ir';
import { verifyText } from '../../ir/gateway';
import { outlineCheck, removeCheckFunction } from '../../codegen/check-outline';

const text = `define i64 @f(i64 %n, i64* %p) {
entry:
  %m = load i64, i64* %p, align 8
  br label %check

check:
  %n128 = sext i64 %n to i128
  %m128 = sext i64 %m to i128
  %sum = add i128 %n128, %m128
  %ok = icmp slt i128 %sum, 100
  %n64 = trunc i128 %n128 to i64
  br label %exit

exit:
  ret i64 %n64
}
`;

function setUp() {
  const module = parseModule(text, 'check.ll');
  const fn = module.functions[0]!;
  const check = fn.blocks.find((b) => b.name === 'check')!;
  const ok = check.instructions.find((i) => i.name === 'ok')!;
  const exit = fn.blocks.find((b) => b.name === 'exit')!;
  // As versioning builds it: the check block has no terminator yet when the check is outlined.
  eraseInstruction(terminator(check)!);
  return { module, fn, check, ok, exit };
}

test('the check moves into a readnone function of what it reads; the block keeps what others use', () => {
  const { module, check, ok, exit } = setUp();
  const outlined = outlineCheck(module, check, ok, 'tsopt.check.f.scop0');
  new IrBuilder(check).br(exit);
  outlined.eraseUnused();
  const printed = printModule(module);
  expect(verifyText(printed)).toBeUndefined();
  expect(printed).toContain(`check:
  %n128 = sext i64 %n to i128
  %n64 = trunc i128 %n128 to i64
  %tsopt.check.ok = call i1 @tsopt.check.f.scop0(i64 %n, i64 %m)
  br label %exit
`);
  expect(printed).toContain(`define internal i1 @tsopt.check.f.scop0(i64 %tsopt.in0, i64 %tsopt.in1) noinline nounwind readnone willreturn {
entry:
  %n128 = sext i64 %tsopt.in0 to i128
  %m128 = sext i64 %tsopt.in1 to i128
  %sum = add i128 %n128, %m128
  %ok = icmp slt i128 %sum, 100
  ret i1 %ok
}`);
});

test('a check that is a constant stays as it is: no function', () => {
  const { module, check } = setUp();
  const t = parseModule('define i1 @g() {\n  ret i1 true\n}\n').functions[0]!.blocks[0]!.instructions[0]!.operands[0]!;
  const outlined = outlineCheck(module, check, t, 'tsopt.check.f.scop0');
  expect(outlined.value).toBe(t);
  expect(outlined.function).toBeUndefined();
  expect(module.functions).toHaveLength(1);
});

test('when versioning gives up after outlining, the function goes with the check block', () => {
  const { module, check, ok, exit } = setUp();
  const outlined = outlineCheck(module, check, ok, 'tsopt.check.f.scop0');
  expect(module.functions.map((f) => f.name)).toEqual(['f', 'tsopt.check.f.scop0']);
  // What versioning's undo does to the check block's instructions, then the function.
  eraseInstruction(outlined.value as Instruction);
  removeCheckFunction(module, outlined);
  new IrBuilder(check).br(exit);
  const printed = printModule(module);
  expect(module.functions.map((f) => f.name)).toEqual(['f']);
  expect(module.symbols.has('tsopt.check.f.scop0')).toBe(false);
  expect(printed).not.toContain('tsopt.check');
  expect(verifyText(printed)).toBeUndefined();
});

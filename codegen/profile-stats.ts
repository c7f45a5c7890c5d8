// `--rtc-stats` with `--profile-use`: how often each dispatch sent control to each specialized
// copy and to the general code (the original region, with its own check and fast path). Each
// dispatch gets counters `@tsopt.rtc.dispatch.N = [copy 0, copy 1, …, general]`, bumped without
// branches in its tests; the first dispatch run registers a printer with atexit, which writes
//   tsopt-rtc: <function> <location> dispatch: spec0=N spec1=M general=G
// per dispatch to stderr, or appends it to $TSOPT_RTC_STATS, as the check counters do
// (check-stats.ts; they say, per copy and for the original, how often the fast path ran).
import {
  IrBuilder, addGlobalVariable, arrayOf, constInt, constNull, createBlock, createFunction, functionType, getOrInsertFunction, i8, insertBlock, intType,
  eraseInstruction, pointerTo, setInitializer, splitEdge, terminator, voidType, zeroInitializer, type BasicBlock, type GlobalVariable, type Module, type Value,
} from '../ir';
import { printerBody } from './check-stats';
import { cStringPointer } from './profile-instrument';

const i32 = intType(32);
const i64 = intType(64);
const i8p = pointerTo(i8);

export class DispatchStats {
  private readonly dispatches: { counters: GlobalVariable; n: number; line: string }[] = [];
  private readonly registered: GlobalVariable;
  private readonly printer: ReturnType<typeof createFunction>;
  private strings = 0;

  constructor(private readonly m: Module) {
    this.registered = addGlobalVariable(m, 'tsopt.rtc.dispatch.registered', i32, { prefix: 'internal', suffix: ', align 4' });
    setInitializer(this.registered, constInt(i32, 0));
    this.printer = createFunction(m, 'tsopt.rtc.dispatch.print', functionType(voidType, []));
    this.printer.prefix = 'internal';
    m.functions.push(this.printer);
    m.symbols.set(this.printer.name, this.printer);
  }

  /**
   * Counts the runs of one dispatch: `tests[k]` ends in `br (params == hot k), copy k, next`,
   * the last test's other edge is the general code. `entering` → `tests[0]` gets the registration.
   */
  instrument(fn: string, location: string, entering: BasicBlock, tests: readonly BasicBlock[]): BasicBlock[] {
    const n = tests.length + 1;
    const t = arrayOf(i64, n);
    const counters = addGlobalVariable(this.m, `tsopt.rtc.dispatch.${this.dispatches.length}`, t, { prefix: 'internal', suffix: ', align 8' });
    setInitializer(counters, zeroInitializer(t));
    const fields = [...tests.map((_, k) => `spec${k}=%llu`), 'general=%llu'];
    this.dispatches.push({ counters, n, line: `tsopt-rtc: ${fn} ${location.replace(/%/g, '%%')} dispatch: ${fields.join(' ')}\n` });
    tests.forEach((test, k) => {
      const br = test.instructions[test.instructions.length - 1]!;
      const b = new IrBuilder().positionBefore(br);
      const taken = br.operands[0]!;
      const bump = (index: number, by: Value) => {
        const p = b.gep(t, counters, [constInt(i64, 0), constInt(i64, index)]);
        b.store(b.add(b.load(i64, p, undefined, 8), b.zext(by, i64)), p, 8);
      };
      bump(k, taken);
      if (k === tests.length - 1) bump(n - 1, b.binary('xor', taken, constInt(intType(1), 1)));
    });
    const check = splitEdge(entering, tests[0]!, `${tests[0]!.name ?? 'dispatch'}.stats`);
    const register = insertBlock(check.parent!, createBlock(`${check.name}.register`), check.parent!.blocks.indexOf(check) + 1);
    eraseInstruction(terminator(check)!);
    const b = new IrBuilder(check);
    b.condBr(b.icmp('eq', b.load(i32, this.registered, undefined, 4), constInt(i32, 0)), register, tests[0]!);
    b.positionAtEnd(register);
    b.store(constInt(i32, 1), this.registered, 4);
    b.call(getOrInsertFunction(this.m, 'atexit', functionType(i32, [pointerTo(functionType(voidType, []))])), [this.printer]);
    b.br(tests[0]!);
    return [check, register, ...tests];
  }

  /** The printer's body. */
  finish(): void {
    const m = this.m;
    const fn = this.printer;
    const { b, fd, dprintf } = printerBody(fn, (b, s) => cStringPointer(m, b, s, `.tsopt.rtc.dispatch.str.${this.strings++}`));
    for (const d of this.dispatches) {
      const t = arrayOf(i64, d.n);
      const values: Value[] = [];
      for (let k = 0; k < d.n; k++) values.push(b.load(i64, b.gep(t, d.counters, [constInt(i64, 0), constInt(i64, k)]), undefined, 8));
      b.call(dprintf, [fd, cStringPointer(m, b, d.line, `.tsopt.rtc.dispatch.str.${this.strings++}`), ...values]);
    }
    b.ret();
  }
}

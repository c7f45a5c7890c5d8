// `--rtc-stats`: run-time telemetry of the checks. Each versioned SCoP gets a counter array
//   @tsopt.rtc.N = [fast runs, slow runs, failures of part 1, failures of part 2, ...]
// counted up (without branches) in its check block, and a destructor registered in
// @llvm.global_dtors prints one line per SCoP at exit:
//   tsopt-rtc: kernel_gemm gemm.c:20 scop0: fast=1 slow=0 alias(C,A)-failed=0 ...
// then, for each alias pair with a stride test, the runs its range and its stride test passed:
//   ... alias(re,im)-range-passed=0 alias(re,im)-stride-passed=1
// to stderr, or appends it to the file named by $TSOPT_RTC_STATS. Only libc's getenv, open
// and dprintf are used, so the program needs nothing else at link time.
import {
  IrBuilder, addGlobalVariable, arrayOf, constAggregate, constInt, constNull, constString, createBlock, createFunction,
  functionType, getOrInsertFunction, i8, insertBlock, intType, literalStruct, pointerTo, setInitializer, voidType, zeroInitializer,
  type GlobalVariable, type IrFunction, type Module, type Value, getGlobalVariable, removeGlobalVariable,
} from '../ir';

const i32 = intType(32);
const i64 = intType(64);
const i8p = pointerTo(i8);

interface CountedPart {
  readonly label: string;
  readonly value: Value;
  readonly tests?: readonly { readonly name: string; readonly value: Value }[];
}

interface Counted {
  readonly index: number;
  /** Counters after the check's (`count` bumps them by name), at the end of the array. */
  readonly extra: readonly string[];
  readonly counters: GlobalVariable;
  readonly line: string;
  readonly n: number;
}

/** C-string text as LLVM prints it in `c"…"`. */
export function cText(s: string): string {
  return [...Buffer.from(s + '\0', 'utf8')].map((c) => (c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c ? String.fromCharCode(c) : `\\${c.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}

export class RtcStats {
  private readonly scops: Counted[] = [];

  constructor(readonly m: Module) {}

  private stringConstant(s: string): Value {
    const bytes = Buffer.byteLength(s, 'utf8') + 1;
    const t = arrayOf(i8, bytes);
    const g = addGlobalVariable(this.m, '.tsopt.rtc.str', t, { prefix: 'private unnamed_addr', constant: true, suffix: ', align 1' });
    setInitializer(g, constString(t, cText(s)));
    return g;
  }

  /**
   * Counts this run of the check at the builder's position (the check block, before its branch).
   * `extra` names further counters of the SCoP, bumped where `count` is called (`parallel`: runs on several threads).
   */
  instrument(b: IrBuilder, fn: IrFunction, location: string, index: number, cond: Value, parts: readonly CountedPart[], extra: readonly string[] = []): void {
    // Alias pairs with a stride test also count the runs each of their tests passed in.
    const tests = parts.flatMap((p) => (p.tests && p.tests.length > 1 ? p.tests.map((t) => ({ label: `${p.label}-${t.name}`, value: t.value })) : []));
    const n = 2 + parts.length + tests.length + extra.length;
    const t = arrayOf(i64, n);
    const counters = addGlobalVariable(this.m, `tsopt.rtc.${index}`, t, { prefix: 'internal', suffix: ', align 8' });
    setInitializer(counters, zeroInitializer(t));
    const bump = (k: number, by: Value) => {
      const p = b.gep(t, counters, [constInt(i64, 0), constInt(i64, k)]);
      b.store(b.add(b.load(i64, p, undefined, 8), b.zext(by, i64)), p, 8);
    };
    const not = (v: Value) => b.binary('xor', v, constInt(intType(1), 1));
    bump(0, cond);
    bump(1, not(cond));
    parts.forEach((part, k) => bump(2 + k, not(part.value)));
    tests.forEach((t, k) => bump(2 + parts.length + k, t.value));
    const field = (label: string) => label.replace(/%/g, '%%').replace(/\s+/g, '');
    const fields = ['fast=%llu', 'slow=%llu', ...parts.map((p) => `${field(p.label)}-failed=%llu`), ...tests.map((t) => `${field(t.label)}-passed=%llu`), ...extra.map((x) => `${x}=%llu`)];
    this.scops.push({ index, extra, counters, n, line: `tsopt-rtc: ${fn.name} ${location.replace(/%/g, '%%')} scop${index}: ${fields.join(' ')}\n` });
  }

  /** Adds one (or `by`, an i64) to SCoP `index`'s counter `name` (one of `instrument`'s `extra`) at the builder's position. */
  count(b: IrBuilder, index: number, name: string, by?: Value): void {
    const s = this.scops.find((c) => c.index === index);
    const k = s?.extra.indexOf(name) ?? -1;
    if (!s || k < 0) throw new Error(`rtc-stats: SCoP ${index} has no counter ${name}`);
    const t = arrayOf(i64, s.n);
    const p = b.gep(t, s.counters, [constInt(i64, 0), constInt(i64, s.n - s.extra.length + k)]);
    b.store(b.add(b.load(i64, p, undefined, 8), by ?? constInt(i64, 1)), p, 8);
  }

  /** Drops SCoP `index`'s counters: its fast path was not generated after all (the check block, their only user, is gone). */
  forget(index: number): void {
    const k = this.scops.findIndex((s) => s.index === index);
    if (k < 0) return;
    removeGlobalVariable(this.scops[k]!.counters);
    this.scops.splice(k, 1);
  }

  /** Adds the destructor that prints the counters (nothing when no SCoP was instrumented). */
  finish(): void {
    if (this.scops.length === 0) return;
    const m = this.m;
    if (getGlobalVariable(m, 'llvm.global_dtors')) throw new Error('--rtc-stats: the module already has destructors (not supported yet)');
    const fn = createFunction(m, 'tsopt.rtc.report', functionType(voidType, []));
    fn.prefix = 'internal';
    m.functions.push(fn);
    m.symbols.set(fn.name, fn);
    const str = (b: IrBuilder, s: string) => b.gep(arrayOf(i8, Buffer.byteLength(s, 'utf8') + 1), this.stringConstant(s), [constInt(i64, 0), constInt(i64, 0)]);
    const { b, fd, dprintf } = printerBody(fn, str);
    for (const s of this.scops) {
      const t = arrayOf(i64, s.n);
      const values: Value[] = [];
      for (let k = 0; k < s.n; k++) values.push(b.load(i64, b.gep(t, s.counters, [constInt(i64, 0), constInt(i64, k)]), undefined, 8));
      b.call(dprintf, [fd, str(b, s.line), ...values]);
    }
    b.ret();
    const entryType = literalStruct([i32, pointerTo(functionType(voidType, [])), i8p]);
    const dtors = addGlobalVariable(m, 'llvm.global_dtors', arrayOf(entryType, 1), { prefix: 'appending' });
    setInitializer(dtors, constAggregate(arrayOf(entryType, 1), [constAggregate(entryType, [constInt(i32, 65535), fn, constNull(i8p)])]));
  }
}

/**
 * The start of a counter printer `fn` (a new, empty function): `fd` is $TSOPT_RTC_STATS opened
 * for appending, or stderr when it is unset or cannot be opened; `b` is positioned after that.
 * Only libc's getenv, open and dprintf are used.
 */
export function printerBody(fn: IrFunction, str: (b: IrBuilder, s: string) => Value): { b: IrBuilder; fd: Value; dprintf: IrFunction } {
  const m = fn.parent;
  const getenv = getOrInsertFunction(m, 'getenv', functionType(i8p, [i8p]));
  const open = getOrInsertFunction(m, 'open', functionType(i32, [i8p, i32], true));
  const dprintf = getOrInsertFunction(m, 'dprintf', functionType(i32, [i32, i8p], true));
  const entry = insertBlock(fn, createBlock('entry'));
  const opening = insertBlock(fn, createBlock('open'));
  const print = insertBlock(fn, createBlock('print'));
  const b = new IrBuilder(entry);
  const path = b.call(getenv, [str(b, 'TSOPT_RTC_STATS')], 'path');
  b.condBr(b.icmp('eq', path, constNull(i8p)), print, opening);
  b.positionAtEnd(opening);
  // O_WRONLY | O_CREAT | O_APPEND on Linux, mode 0644
  const fd0 = b.call(open, [path, constInt(i32, 0x441), constInt(i32, 0o644)], 'fd');
  const fd1 = b.select(b.icmp('slt', fd0, constInt(i32, 0)), constInt(i32, 2), fd0);
  b.br(print);
  b.positionAtEnd(print);
  const fd = b.phi(i32, 'out', [[constInt(i32, 2), entry], [fd1, opening]]);
  return { b, fd, dprintf };
}

// `--profile-generate`: the instrumentation and its run-time, emitted as IR into the module
// itself, so the instrumented module links with a plain clang (tsopt stays a filter on IR).
//
// Each profiled region N gets a table `@tsopt.prof.N = [entries, other, S slots of (count, P values)]`
// of i64, and a call `@tsopt.prof.record.N(i64 p0, …)` on its entering edge. The record function
// counts the entry, then bumps the slot that holds these values, fills the first empty slot, or
// counts the entry in `other` when all S slots hold other values. The first call registers
// `@tsopt.prof.write` with atexit; at exit it appends one JSON line per entered region to the
// profile (`$TSOPT_PROFILE_FILE`, else the file named at compile time), opened with O_APPEND:
//   {"tsoptProfile":1,"function":"f","fingerprint":"…","region":0,"kind":"scop","location":"…",
//    "parameters":["%n","%s"],"entries":123,"other":0,"top":[[120,["1000","4"]],[3,["10","4"]],[0,["0","0"]],…]}
// Each line is one dprintf, i.e. one write(2) of a short buffer to a file opened with O_APPEND:
// processes exiting at once add whole lines, never interleave within one, and never lose one.
// Merging is the reader's (passes/profile-data.ts): it sums the lines of a region over runs.
// The tables are not atomic: threads entering regions at once may lose counts (never correctness).
import {
  IrBuilder, addGlobalVariable, arrayOf, constInt, constNull, constString, createBlock, createFunction, functionType, getOrInsertFunction,
  i8, insertBlock, intType, pointerTo, setInitializer, splitEdge, voidType, zeroInitializer, type BasicBlock, type IntegerType, type Module, type Value,
} from '../ir';
import { cText } from './check-stats';

/** The `tsoptProfile` field of every line: bumped when the format changes. */
export const PROFILE_FORMAT_VERSION = 1;
/** Slots (distinct value tuples) recorded per region; entries with other values count in `other`. */
export const PROFILE_SLOTS = 8;
/** The profile file when `--profile-generate` names none (clang's PGO uses default.profraw). */
export const DEFAULT_PROFILE_FILE = 'tsopt.profile.json';

const i32 = intType(32);
const i64 = intType(64);
const i8p = pointerTo(i8);

/** What one profiled region contributes to the instrumentation. */
export interface InstrumentedRegion {
  readonly function: string;
  readonly fingerprint: string;
  readonly region: number;
  readonly kind: string;
  readonly location: string;
  /** Where the values are available: the region's one outside predecessor and its entry (the call goes on that edge). */
  readonly entering: BasicBlock;
  readonly entry: BasicBlock;
  readonly parameters: readonly Value[];
  readonly parameterNames: readonly string[];
}

/** A pointer to a new private constant holding `s` as a C string (made at the builder's position). */
export function cStringPointer(m: Module, b: IrBuilder, s: string, name: string): Value {
  const bytes = Buffer.byteLength(s, 'utf8') + 1;
  const t = arrayOf(i8, bytes);
  const g = addGlobalVariable(m, name, t, { prefix: 'private unnamed_addr', constant: true, suffix: ', align 1' });
  setInitializer(g, constString(t, cText(s)));
  return b.gep(t, g, [constInt(i64, 0), constInt(i64, 0)]);
}

export class ProfileInstrumentation {
  private readonly tables: { table: Value; n: number; line: string; slots: number }[] = [];
  private strings = 0;
  private readonly registered: Value;
  private readonly writer: ReturnType<typeof createFunction>;

  constructor(private readonly m: Module, private readonly file: string) {
    const flag = addGlobalVariable(m, 'tsopt.prof.registered', i32, { prefix: 'internal', suffix: ', align 4' });
    setInitializer(flag, constInt(i32, 0));
    this.registered = flag;
    this.writer = createFunction(m, 'tsopt.prof.write', functionType(voidType, []));
    this.writer.prefix = 'internal';
    m.functions.push(this.writer);
    m.symbols.set(this.writer.name, this.writer);
  }

  private cString(b: IrBuilder, s: string): Value {
    return cStringPointer(this.m, b, s, `.tsopt.prof.str.${this.strings++}`);
  }

  /** Records the region's parameter values each time control enters it. */
  instrument(r: InstrumentedRegion): void {
    const p = r.parameters.length;
    const n = 2 + PROFILE_SLOTS * (1 + p);
    const t = arrayOf(i64, n);
    const k = this.tables.length;
    const table = addGlobalVariable(this.m, `tsopt.prof.${k}`, t, { prefix: 'internal', suffix: ', align 8' });
    setInitializer(table, zeroInitializer(t));
    const json = (v: unknown) => JSON.stringify(v).replace(/%/g, '%%');
    const slot = `[%llu,[${Array.from({ length: p }, () => '"%lld"').join(',')}]]`;
    const line = `{"tsoptProfile":${PROFILE_FORMAT_VERSION},"function":${json(r.function)},"fingerprint":${json(r.fingerprint)},"region":${r.region},"kind":${json(r.kind)},` +
      `"location":${json(r.location)},"parameters":${json(r.parameterNames)},"entries":%llu,"other":%llu,"top":[${Array.from({ length: PROFILE_SLOTS }, () => slot).join(',')}]}\n`;
    this.tables.push({ table, n, line, slots: PROFILE_SLOTS });
    const record = this.recordFunction(k, table, t, p);
    const mid = splitEdge(r.entering, r.entry, `${r.entry.name ?? 'region'}.tsopt.prof`);
    const b = new IrBuilder().positionBefore(mid.instructions[mid.instructions.length - 1]!);
    b.call(record, r.parameters.map((v) => (v.type as IntegerType).bits === 64 ? v : b.sext(v, i64)));
  }

  /** `@tsopt.prof.record.K(i64 …)`: count one entry with these values into table K. */
  private recordFunction(k: number, table: Value, t: ReturnType<typeof arrayOf>, p: number) {
    const m = this.m;
    const fn = createFunction(m, `tsopt.prof.record.${k}`, functionType(voidType, Array.from({ length: p }, () => i64)));
    fn.prefix = 'internal';
    m.functions.push(fn);
    m.symbols.set(fn.name, fn);
    const at = (b: IrBuilder, index: number) => b.gep(t, table, [constInt(i64, 0), constInt(i64, index)]);
    const bump = (b: IrBuilder, index: number) => {
      const ptr = at(b, index);
      b.store(b.add(b.load(i64, ptr, undefined, 8), constInt(i64, 1)), ptr, 8);
    };
    const entry = insertBlock(fn, createBlock('entry'));
    const register = insertBlock(fn, createBlock('register'));
    const slots = Array.from({ length: PROFILE_SLOTS }, (_, s) => ({
      test: insertBlock(fn, createBlock(`slot${s}`)),
      compare: insertBlock(fn, createBlock(`slot${s}.compare`)),
      fill: insertBlock(fn, createBlock(`slot${s}.fill`)),
      hit: insertBlock(fn, createBlock(`slot${s}.hit`)),
    }));
    const miss = insertBlock(fn, createBlock('other'));
    const b = new IrBuilder(entry);
    bump(b, 0);
    const done = b.load(i32, this.registered, undefined, 4);
    b.condBr(b.icmp('eq', done, constInt(i32, 0)), register, slots[0]!.test);
    b.positionAtEnd(register);
    b.store(constInt(i32, 1), this.registered, 4);
    const atexit = getOrInsertFunction(m, 'atexit', functionType(i32, [pointerTo(functionType(voidType, []))]));
    b.call(atexit, [this.writer]);
    b.br(slots[0]!.test);
    slots.forEach((s, si) => {
      const base = 2 + si * (1 + p);
      const next = si + 1 < slots.length ? slots[si + 1]!.test : miss;
      b.positionAtEnd(s.test);
      const count = b.load(i64, at(b, base), undefined, 8);
      b.condBr(b.icmp('eq', count, constInt(i64, 0)), s.fill, s.compare);
      b.positionAtEnd(s.compare);
      const same = fn.args.map((a, j) => b.icmp('eq', b.load(i64, at(b, base + 1 + j), undefined, 8), a)).reduce((x, y) => b.and(x, y));
      b.condBr(same, s.hit, next);
      b.positionAtEnd(s.fill);
      fn.args.forEach((a, j) => b.store(a, at(b, base + 1 + j), 8));
      b.store(constInt(i64, 1), at(b, base), 8);
      b.ret();
      b.positionAtEnd(s.hit);
      bump(b, base);
      b.ret();
    });
    b.positionAtEnd(miss);
    bump(b, 1);
    b.ret();
    return fn;
  }

  /** The exit writer's body; without any instrumented region, the module is left as it was. */
  finish(): void {
    const m = this.m;
    const fn = this.writer;
    const entry = insertBlock(fn, createBlock('entry'));
    const write = insertBlock(fn, createBlock('write'));
    const b = new IrBuilder(entry);
    const getenv = getOrInsertFunction(m, 'getenv', functionType(i8p, [i8p]));
    const open = getOrInsertFunction(m, 'open', functionType(i32, [i8p, i32], true));
    const close = getOrInsertFunction(m, 'close', functionType(i32, [i32]));
    const dprintf = getOrInsertFunction(m, 'dprintf', functionType(i32, [i32, i8p], true));
    const env = b.call(getenv, [this.cString(b, 'TSOPT_PROFILE_FILE')], 'env');
    const path = b.select(b.icmp('eq', env, constNull(i8p)), this.cString(b, this.file), env);
    // O_WRONLY | O_CREAT | O_APPEND on Linux, mode 0644
    const fd = b.call(open, [path, constInt(i32, 0x441), constInt(i32, 0o644)], 'fd');
    const quit = insertBlock(fn, createBlock('quit'));
    b.condBr(b.icmp('slt', fd, constInt(i32, 0)), quit, write);
    b.positionAtEnd(quit);
    b.ret();
    b.positionAtEnd(write);
    for (const tab of this.tables) {
      const t = arrayOf(i64, tab.n);
      const entries = b.load(i64, b.gep(t, tab.table, [constInt(i64, 0), constInt(i64, 0)]), undefined, 8);
      const print = insertBlock(fn, createBlock('print'));
      const next = insertBlock(fn, createBlock('next'));
      b.condBr(b.icmp('eq', entries, constInt(i64, 0)), next, print);
      b.positionAtEnd(print);
      const values: Value[] = [];
      for (let k = 0; k < tab.n; k++) values.push(b.load(i64, b.gep(t, tab.table, [constInt(i64, 0), constInt(i64, k)]), undefined, 8));
      b.call(dprintf, [fd, this.cString(b, tab.line), ...values]);
      b.br(next);
      b.positionAtEnd(next);
    }
    b.call(close, [fd]);
    b.ret();
  }
}

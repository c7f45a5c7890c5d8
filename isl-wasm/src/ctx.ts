// The isl context: owns every object made with it, scopes their lifetimes,
// turns isl's error values into thrown errors, and carries options and the
// operations quota.
import { IslError, IslObject, IslQuotaError, IslUseAfterFreeError, Scope, type IslPtr } from './object';
import { islModule } from './loader';
import {
  Aff, BasicMap, BasicSet, Id, IslErrorCode, Map, MultiAff, MultiUnionPwAff, MultiVal, PwAff, PwMultiAff,
  Schedule, Set, UnionMap, UnionPwAff, UnionPwMultiAff, UnionSet, Val, ValList, type RawModule, type Space,
} from './generated/isl';

/** isl options that are switches. */
export interface IslSwitches {
  scheduleOuterCoincidence: boolean;
  scheduleMaximizeBandDepth: boolean;
  scheduleMaximizeCoincidence: boolean;
  scheduleSerializeSccs: boolean;
  scheduleWholeComponent: boolean;
  scheduleSeparateComponents: boolean;
  scheduleTreatCoalescing: boolean;
  scheduleCarrySelfFirst: boolean;
  astBuildAtomicUpperBound: boolean;
  astBuildDetectMinMax: boolean;
  astBuildExploitNestedBounds: boolean;
  astBuildAllowElse: boolean;
  astBuildAllowOr: boolean;
  astBuildScaleStrides: boolean;
  astBuildPreferPdiv: boolean;
  astBuildGroupCoscheduled: boolean;
  astAlwaysPrintBlock: boolean;
}

/** isl options that are numbers; -1 means "no bound" for the two schedule bounds. */
export interface IslNumbers {
  scheduleMaxCoefficient: number;
  scheduleMaxConstantTerm: number;
  /** 0 = ISL_SCHEDULE_ALGORITHM_ISL, 1 = ISL_SCHEDULE_ALGORITHM_FEAUTRIER */
  scheduleAlgorithm: number;
  /** 0 = ISL_AST_BUILD_SEPARATION_BOUNDS_EXPLICIT, 1 = …_IMPLICIT */
  astBuildSeparationBounds: number;
}

export type IslOptions = Partial<IslSwitches & IslNumbers>;

type Setter = (m: RawModule, c: IslPtr<'isl_ctx'>, v: number) => number;
type Getter = (m: RawModule, c: IslPtr<'isl_ctx'>) => number;

/** One row per option: isl's setter and getter (isl_options_set_… / isl_options_get_…). */
const OPTIONS: { [K in keyof (IslSwitches & IslNumbers)]: [Setter, Getter] } = {
  scheduleOuterCoincidence: [(m, c, v) => m._isl_options_set_schedule_outer_coincidence(c, v), (m, c) => m._isl_options_get_schedule_outer_coincidence(c)],
  scheduleMaximizeBandDepth: [(m, c, v) => m._isl_options_set_schedule_maximize_band_depth(c, v), (m, c) => m._isl_options_get_schedule_maximize_band_depth(c)],
  scheduleMaximizeCoincidence: [(m, c, v) => m._isl_options_set_schedule_maximize_coincidence(c, v), (m, c) => m._isl_options_get_schedule_maximize_coincidence(c)],
  scheduleSerializeSccs: [(m, c, v) => m._isl_options_set_schedule_serialize_sccs(c, v), (m, c) => m._isl_options_get_schedule_serialize_sccs(c)],
  scheduleWholeComponent: [(m, c, v) => m._isl_options_set_schedule_whole_component(c, v), (m, c) => m._isl_options_get_schedule_whole_component(c)],
  scheduleSeparateComponents: [(m, c, v) => m._isl_options_set_schedule_separate_components(c, v), (m, c) => m._isl_options_get_schedule_separate_components(c)],
  scheduleTreatCoalescing: [(m, c, v) => m._isl_options_set_schedule_treat_coalescing(c, v), (m, c) => m._isl_options_get_schedule_treat_coalescing(c)],
  scheduleCarrySelfFirst: [(m, c, v) => m._isl_options_set_schedule_carry_self_first(c, v), (m, c) => m._isl_options_get_schedule_carry_self_first(c)],
  scheduleMaxCoefficient: [(m, c, v) => m._isl_options_set_schedule_max_coefficient(c, v), (m, c) => m._isl_options_get_schedule_max_coefficient(c)],
  scheduleMaxConstantTerm: [(m, c, v) => m._isl_options_set_schedule_max_constant_term(c, v), (m, c) => m._isl_options_get_schedule_max_constant_term(c)],
  scheduleAlgorithm: [(m, c, v) => m._isl_options_set_schedule_algorithm(c, v), (m, c) => m._isl_options_get_schedule_algorithm(c)],
  astBuildAtomicUpperBound: [(m, c, v) => m._isl_options_set_ast_build_atomic_upper_bound(c, v), (m, c) => m._isl_options_get_ast_build_atomic_upper_bound(c)],
  astBuildDetectMinMax: [(m, c, v) => m._isl_options_set_ast_build_detect_min_max(c, v), (m, c) => m._isl_options_get_ast_build_detect_min_max(c)],
  astBuildExploitNestedBounds: [(m, c, v) => m._isl_options_set_ast_build_exploit_nested_bounds(c, v), (m, c) => m._isl_options_get_ast_build_exploit_nested_bounds(c)],
  astBuildAllowElse: [(m, c, v) => m._isl_options_set_ast_build_allow_else(c, v), (m, c) => m._isl_options_get_ast_build_allow_else(c)],
  astBuildAllowOr: [(m, c, v) => m._isl_options_set_ast_build_allow_or(c, v), (m, c) => m._isl_options_get_ast_build_allow_or(c)],
  astBuildScaleStrides: [(m, c, v) => m._isl_options_set_ast_build_scale_strides(c, v), (m, c) => m._isl_options_get_ast_build_scale_strides(c)],
  astBuildPreferPdiv: [(m, c, v) => m._isl_options_set_ast_build_prefer_pdiv(c, v), (m, c) => m._isl_options_get_ast_build_prefer_pdiv(c)],
  astBuildGroupCoscheduled: [(m, c, v) => m._isl_options_set_ast_build_group_coscheduled(c, v), (m, c) => m._isl_options_get_ast_build_group_coscheduled(c)],
  astBuildSeparationBounds: [(m, c, v) => m._isl_options_set_ast_build_separation_bounds(c, v), (m, c) => m._isl_options_get_ast_build_separation_bounds(c)],
  astAlwaysPrintBlock: [(m, c, v) => m._isl_options_set_ast_always_print_block(c, v), (m, c) => m._isl_options_get_ast_always_print_block(c)],
};

/** `isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE)`: errors are reported, never printed or aborted on. */
const ISL_ON_ERROR_CONTINUE = 1;
const COMPACT_MIN = 256;
/** isl's counters are C `unsigned long`: 32 bits in wasm32. */
const MAX_ULONG = 0xffff_ffff;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * isl's quota does not count the allocations of its big-integer library, which can be
 * nearly all the work (seconds between two counted operations on subscripts modulo 2^32).
 * While a quota is open, every `n` allocations isl did not count are charged to it as one
 * operation (native/glue.c); 0 turns that off. Process-wide; the default is 4.
 */
export function chargeIslAllocations(n: number): void {
  islModule()._tsopt_set_allocations_per_operation(n);
}

/** The context whose quota uncounted allocations are charged to (the innermost open one). */
let metered: Ctx | undefined;

/** Bytes malloc currently has handed out in the (process-wide) wasm heap. */
export function islHeapInUse(): number {
  return islModule()._tsopt_heap_in_use() >>> 0;
}

/**
 * An isl context (`isl_ctx`). Objects of different contexts cannot be mixed.
 * Call dispose() when done: it frees every object still alive and the context.
 */
export class Ctx {
  /** @internal the raw wasm exports */
  readonly m: RawModule;
  #ptr: IslPtr<'isl_ctx'>;
  /** Objects kept with keep() or made outside any scope. */
  readonly rootScope = new Scope();
  #scopes: Scope[] = [this.rootScope];
  /** How many withMaxOperations calls are open. */
  #quotaDepth = 0;

  constructor(options: IslOptions = {}) {
    this.m = islModule();
    this.#ptr = this.m._isl_ctx_alloc();
    if (this.#ptr === 0) throw new Error('isl_ctx_alloc failed');
    this.m._isl_options_set_on_error(this.#ptr, ISL_ON_ERROR_CONTINUE);
    this.setOptions(options);
  }

  /** Whether dispose() has freed this context. */
  get disposed(): boolean {
    return this.#ptr === 0;
  }

  /** @internal */
  get ptr(): IslPtr<'isl_ctx'> {
    if (this.#ptr === 0) throw new IslUseAfterFreeError('Ctx used after dispose()');
    return this.#ptr;
  }

  // ------------------------------------------------------------ options and quota

  setOptions(options: IslOptions): void {
    for (const [key, value] of Object.entries(options) as [keyof typeof OPTIONS, number | boolean | undefined][]) {
      if (value === undefined) continue;
      const row = OPTIONS[key];
      if (row === undefined) throw new Error(`unknown isl option ${key}`);
      this.stat(row[0](this.m, this.ptr, typeof value === 'boolean' ? (value ? 1 : 0) : value), `isl_options_set (${key})`);
    }
  }

  getOptions(): IslSwitches & IslNumbers {
    const out: Record<string, number | boolean> = {};
    for (const [key, [, get]] of Object.entries(OPTIONS)) {
      const v = get(this.m, this.ptr);
      out[key] = key in NUMERIC_OPTIONS ? v : v !== 0;
    }
    return out as unknown as IslSwitches & IslNumbers;
  }

  /**
   * `isl_ctx_set_max_operations`; 0 means no limit. The limit is absolute: isl fails once
   * `operations` reaches it. Inside withMaxOperations prefer a nested withMaxOperations.
   */
  setMaxOperations(n: number): void {
    this.m._isl_ctx_set_max_operations(this.ptr, Math.min(n, MAX_ULONG));
  }

  get maxOperations(): number {
    return this.m._isl_ctx_get_max_operations(this.ptr) >>> 0;
  }

  /**
   * Operations isl counted (allocations and simplex pivots) since the outermost
   * withMaxOperations began, or since the last resetOperations().
   */
  get operations(): number {
    return this.m._tsopt_ctx_operations(this.ptr) >>> 0;
  }

  /** `isl_ctx_reset_operations`: restart the count the quota is checked against. */
  resetOperations(): void {
    this.m._isl_ctx_reset_operations(this.ptr);
  }

  /**
   * Runs fn with a quota of `maxOperations` isl operations (0: none of its own), like
   * Polly's IslMaxOperationsGuard. Operations are what isl counts (its allocations and
   * simplex pivots) plus a charge for the allocations it does not count
   * (chargeIslAllocations). Past the quota an isl call throws IslQuotaError,
   * which lets a pass give up on one SCoP; afterwards the enclosing quota is back and
   * the context is usable.
   *
   * Quotas compose: inside another withMaxOperations the limit is the smaller of
   * `maxOperations` and what remains of the enclosing quota, and the operations spent
   * inside count against the enclosing one too (the count is never reset while a quota
   * is open, so a nested call can neither reset nor extend its caller's quota). Only the
   * outermost call restarts the count, at its start and at its end.
   */
  withMaxOperations<T>(maxOperations: number, fn: () => T): T {
    const outermost = this.#quotaDepth === 0;
    // Absolute limit of the enclosing quota (or of setMaxOperations), 0 = none.
    const enclosing = this.maxOperations;
    if (outermost) this.resetOperations();
    let limit = maxOperations > 0 ? Math.min(this.operations + maxOperations, MAX_ULONG) : enclosing;
    if (enclosing > 0 && limit > enclosing) limit = enclosing;
    this.setMaxOperations(limit);
    this.#quotaDepth++;
    const previous = metered;
    metered = this;
    this.m._tsopt_meter(this.ptr);
    try {
      return fn();
    } finally {
      metered = previous;
      this.m._tsopt_meter(previous && !previous.disposed ? previous.ptr : 0);
      this.#quotaDepth--;
      this.setMaxOperations(enclosing);
      if (outermost) this.resetOperations();
      this.m._isl_ctx_reset_error(this.ptr);
    }
  }

  // ------------------------------------------------------------ scopes

  /**
   * Runs fn in a new scope: every isl object made inside is freed when fn
   * returns, except the returned value (an isl object, or an array or plain
   * object holding isl objects one level deep), which moves to the enclosing
   * scope. Objects that must live longer can be kept with keep().
   */
  scope<T>(fn: () => T): T {
    const scope = new Scope();
    this.#scopes.push(scope);
    let result: T;
    try {
      result = fn();
      if (result instanceof Promise) throw new Error('Ctx.scope: fn must be synchronous');
      this.#scopes.pop();
      this.adoptResult(result, this.currentScope());
    } catch (e) {
      if (this.#scopes[this.#scopes.length - 1] === scope) this.#scopes.pop();
      this.freeScope(scope);
      throw e;
    }
    this.freeScope(scope);
    return result;
  }

  /** @internal */
  currentScope(): Scope {
    return this.#scopes[this.#scopes.length - 1];
  }

  /** @internal called by every IslObject constructor */
  adopt(o: IslObject<string>): void {
    const scope = o.scope;
    o.slot = scope.items.length;
    scope.items.push(o);
    scope.live++;
  }

  /** @internal called by dispose() */
  release(o: IslObject<string>): void {
    const scope = o.scope;
    scope.items[o.slot] = undefined;
    scope.live--;
    if (scope.items.length > COMPACT_MIN && scope.live * 4 < scope.items.length) compact(scope);
  }

  /** @internal */
  moveTo(o: IslObject<string>, target: Scope): void {
    if (o.scope === target || o.disposed) return;
    this.release(o);
    o.scope = target;
    this.adopt(o);
  }

  private adoptResult(value: unknown, target: Scope): void {
    if (value instanceof IslObject) {
      this.moveTo(value, target);
    } else if (Array.isArray(value)) {
      for (const v of value) if (v instanceof IslObject) this.moveTo(v, target);
    } else if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
      for (const v of Object.values(value)) if (v instanceof IslObject) this.moveTo(v, target);
    }
  }

  private freeScope(scope: Scope): void {
    for (const o of scope.items) o?.freeFromScope();
    scope.items = [];
    scope.live = 0;
  }

  /** Frees every object of this context still alive, then the context. */
  dispose(): void {
    if (this.#ptr === 0) return;
    for (let i = this.#scopes.length - 1; i >= 0; i--) this.freeScope(this.#scopes[i]);
    this.#scopes = [this.rootScope];
    if (metered === this) {
      metered = undefined;
      this.m._tsopt_meter(0);
    }
    this.m._isl_ctx_free(this.#ptr);
    this.#ptr = 0 as IslPtr<'isl_ctx'>;
  }

  // ------------------------------------------------------------ parsing shortcuts (isl notation)

  /** `isl_set_read_from_str`, e.g. `[n] -> { S[i] : 0 <= i < n }` */
  set(text: string): Set { return Set.readFromStr(this, text); }
  basicSet(text: string): BasicSet { return BasicSet.readFromStr(this, text); }
  map(text: string): Map { return Map.readFromStr(this, text); }
  basicMap(text: string): BasicMap { return BasicMap.readFromStr(this, text); }
  unionSet(text: string): UnionSet { return UnionSet.readFromStr(this, text); }
  unionMap(text: string): UnionMap { return UnionMap.readFromStr(this, text); }
  aff(text: string): Aff { return Aff.readFromStr(this, text); }
  pwAff(text: string): PwAff { return PwAff.readFromStr(this, text); }
  multiAff(text: string): MultiAff { return MultiAff.readFromStr(this, text); }
  pwMultiAff(text: string): PwMultiAff { return PwMultiAff.readFromStr(this, text); }
  unionPwAff(text: string): UnionPwAff { return UnionPwAff.readFromStr(this, text); }
  unionPwMultiAff(text: string): UnionPwMultiAff { return UnionPwMultiAff.readFromStr(this, text); }
  multiUnionPwAff(text: string): MultiUnionPwAff { return MultiUnionPwAff.readFromStr(this, text); }
  schedule(text: string): Schedule { return Schedule.readFromStr(this, text); }
  /** An integer value (`isl_val_read_from_str`, so any size works). */
  val(value: number | bigint | string): Val { return Val.readFromStr(this, String(value)); }
  /** `isl_id_alloc` without a user pointer. */
  id(name: string): Id { return Id.readFromStr(this, name); }
  /** A multi_val in `space` (e.g. a band's space) from integers, e.g. tile sizes. */
  multiVal(space: Space, values: readonly (number | bigint)[]): MultiVal {
    return this.scope(() => {
      let list = ValList.alloc(this, values.length);
      for (const v of values) list = list.add(this.val(v));
      return MultiVal.fromValList(space, list);
    });
  }

  // ------------------------------------------------------------ used by the generated layer

  /** @internal the pointer of an argument, checked for liveness and context */
  own<K extends string>(o: IslObject<K>): IslPtr<K> {
    if (o.ctx !== this) throw new IslUseAfterFreeError(`${o.constructor.name} of another Ctx`);
    return o.ptr;
  }

  /** @internal */
  give<P extends number>(p: P, fn: string): P {
    if (p === 0) this.fail(fn);
    return p;
  }

  /** @internal isl_bool → boolean */
  bool(r: number, fn: string): boolean {
    if (r < 0) this.fail(fn);
    return r !== 0;
  }

  /** @internal isl_size → number */
  size(r: number, fn: string): number {
    if (r < 0) this.fail(fn);
    return r;
  }

  /** @internal isl_stat → void */
  stat(r: number, fn: string): void {
    if (r < 0) this.fail(fn);
  }

  /** @internal enums whose error member is -1 */
  enumValue(r: number, fn: string): number {
    if (r === -1) this.fail(fn);
    return r;
  }

  /** @internal `__isl_give char *`: read and free */
  takeString(p: number, fn: string): string {
    if (p === 0) this.fail(fn);
    const s = this.readString(p) as string;
    this.m._free(p);
    return s;
  }

  /** @internal `const char *` owned by isl */
  readString(p: number): string | null {
    if (p === 0) return null;
    const heap = this.m.HEAPU8;
    const end = heap.indexOf(0, p);
    return decoder.decode(heap.subarray(p, end));
  }

  /** @internal a malloc'ed NUL-terminated copy of s; the caller frees it */
  cString(s: string): number {
    const bytes = encoder.encode(s);
    const p = this.m._malloc(bytes.length + 1);
    const heap = this.m.HEAPU8;
    heap.set(bytes, p);
    heap[p + bytes.length] = 0;
    return p;
  }

  /** @internal throws isl's last error for a failed call of `fn` and clears it */
  fail(fn: string): never {
    const m = this.m;
    const code = m._isl_ctx_last_error(this.ptr);
    const message = this.readString(m._isl_ctx_last_error_msg(this.ptr)) ?? 'unknown isl error';
    m._isl_ctx_reset_error(this.ptr);
    // isl's text reader reports any failure inside it as a syntax error, a spent quota too.
    const spent = this.maxOperations > 0 && this.operations >= this.maxOperations;
    if (code === IslErrorCode.quota || spent) throw new IslQuotaError(`${fn}: ${code === IslErrorCode.quota ? message : `maximal number of operations exceeded (isl: ${message})`}`, fn, IslErrorCode.quota);
    throw new IslError(`${fn}: ${message}`, fn, code);
  }
}

const NUMERIC_OPTIONS: Record<keyof IslNumbers, true> = {
  scheduleMaxCoefficient: true, scheduleMaxConstantTerm: true, scheduleAlgorithm: true, astBuildSeparationBounds: true,
};

function compact(scope: Scope): void {
  const live: IslObject<string>[] = [];
  for (const o of scope.items) {
    if (o !== undefined) {
      o.slot = live.length;
      live.push(o);
    }
  }
  scope.items = live;
  scope.live = live.length;
}

// The function analysis manager: computes analyses on demand, caches them per function,
// and drops what a pass did not preserve, together with every result computed from it.
// It owns what it caches: a result whose key has `dispose` (isl objects) is freed when it is
// dropped, and `clear()` frees everything at the end of a run.
import type { IrFunction } from '../ir';

/** Names of the analyses a pass kept valid, or one of the two extremes. */
export type Preserved = 'all' | 'none' | ReadonlySet<string>;

/**
 * A function analysis: computed on demand by `compute`, cached per function by
 * the analysis manager under `name`, and dropped when a pass does not preserve it.
 */
export interface AnalysisKey<T> {
  readonly name: string;
  compute(fn: IrFunction, am: FunctionAnalysisManager): T;
  /** Frees what a result holds outside the JavaScript heap (isl objects); the manager calls it when it drops the result. */
  dispose?(result: T): void;
}

export interface FunctionAnalysisManager {
  /** The cached result of `key` for `fn`, computing it first if needed. */
  get<T>(key: AnalysisKey<T>, fn: IrFunction): T;
  /** The cached result of `key` for `fn`, never computing it (LLVM's getCachedResult): what an earlier pass left valid. */
  getCached<T>(key: AnalysisKey<T>, fn: IrFunction): T | undefined;
  /** Drops every cached result for `fn` that `preserved` does not name. */
  invalidate(fn: IrFunction, preserved: Preserved): void;
}

/** One cached result: an analysis of one function. */
interface Entry {
  readonly value: unknown;
  /** Results that read this one while they were computed; they go stale with it. */
  readonly dependents: Set<Entry>;
  readonly fn: IrFunction;
  readonly name: string;
  readonly dispose: (() => void) | undefined;
}

export interface AnalysisCounts {
  computed: number;
  reused: number;
  invalidated: number;
}

export class AnalysisManager implements FunctionAnalysisManager {
  private readonly cache = new Map<IrFunction, Map<string, Entry>>();
  /** The analyses being computed right now, innermost last (to record dependencies and catch cycles). */
  private readonly inProgress: { fn: IrFunction; name: string; reads: Entry[] }[] = [];
  readonly counts: AnalysisCounts = { computed: 0, reused: 0, invalidated: 0 };

  get<T>(key: AnalysisKey<T>, fn: IrFunction): T {
    const perFn = this.cache.get(fn) ?? new Map<string, Entry>();
    this.cache.set(fn, perFn);
    let entry = perFn.get(key.name);
    if (entry) {
      this.counts.reused++;
    } else {
      if (this.inProgress.some((p) => p.fn === fn && p.name === key.name)) {
        const chain = [...this.inProgress.map((p) => p.name), key.name].join(' -> ');
        throw new Error(`analysis cycle: ${chain}`);
      }
      const frame = { fn, name: key.name, reads: [] as Entry[] };
      this.inProgress.push(frame);
      let value: T;
      try {
        value = key.compute(fn, this);
      } finally {
        this.inProgress.pop();
      }
      const owned = value;
      entry = { value, dependents: new Set(), fn, name: key.name, dispose: key.dispose && (() => key.dispose!(owned)) };
      for (const read of frame.reads) read.dependents.add(entry);
      perFn.set(key.name, entry);
      this.counts.computed++;
    }
    this.inProgress.at(-1)?.reads.push(entry);
    return entry.value as T;
  }

  getCached<T>(key: AnalysisKey<T>, fn: IrFunction): T | undefined {
    const entry = this.cache.get(fn)?.get(key.name);
    if (!entry) return undefined;
    this.counts.reused++;
    this.inProgress.at(-1)?.reads.push(entry);
    return entry.value as T;
  }

  invalidate(fn: IrFunction, preserved: Preserved): void {
    if (preserved === 'all') return;
    const perFn = this.cache.get(fn);
    if (!perFn) return;
    for (const entry of [...perFn.values()]) {
      if (preserved === 'none' || !preserved.has(entry.name)) this.drop(entry);
    }
  }

  /** What a module pass reports applies to every function it may have touched. */
  invalidateAll(preserved: Preserved): void {
    for (const fn of [...this.cache.keys()]) this.invalidate(fn, preserved);
  }

  /** Whether a result is cached (for tests and debug logs). */
  has(name: string, fn: IrFunction): boolean {
    return this.cache.get(fn)?.has(name) ?? false;
  }

  /** Drops and frees every cached result (at the end of a run; not counted as invalidations). */
  clear(): void {
    for (const perFn of [...this.cache.values()]) {
      for (const entry of [...perFn.values()]) this.drop(entry, false);
    }
  }

  /** Drops `entry` and what was computed from it; dependents are freed first, as they may hold objects of `entry`'s. */
  private drop(entry: Entry, counted = true): void {
    const perFn = this.cache.get(entry.fn);
    if (perFn?.get(entry.name) !== entry) return;
    perFn.delete(entry.name);
    if (perFn.size === 0) this.cache.delete(entry.fn);
    if (counted) this.counts.invalidated++;
    for (const dependent of entry.dependents) this.drop(dependent, counted);
    entry.dispose?.();
  }
}

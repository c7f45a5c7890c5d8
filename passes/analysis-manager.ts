// The function analysis manager: computes analyses on demand, caches them per function,
// and drops what a pass did not preserve, together with every result computed from it.
import type { IrFunction } from '../ir';
import type { AnalysisKey, FunctionAnalysisManager, Preserved } from './pass';

/** One cached result: an analysis of one function. */
interface Entry {
  readonly value: unknown;
  /** Results that read this one while they were computed; they go stale with it. */
  readonly dependents: Set<Entry>;
  readonly fn: IrFunction;
  readonly name: string;
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
      entry = { value, dependents: new Set(), fn, name: key.name };
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

  private drop(entry: Entry): void {
    const perFn = this.cache.get(entry.fn);
    if (perFn?.get(entry.name) !== entry) return;
    perFn.delete(entry.name);
    if (perFn.size === 0) this.cache.delete(entry.fn);
    this.counts.invalidated++;
    for (const dependent of entry.dependents) this.drop(dependent);
    // A result holding native memory (the models' isl context) frees it with its entry, after
    // the results computed from it: otherwise a module's contexts would all live to the end.
    disposeOf(entry.value)?.();
  }
}

/** The `dispose()` of a result that has one (FunctionScopModels), bound to it. */
function disposeOf(value: unknown): (() => void) | undefined {
  if (typeof value !== 'object' || value === null || !('dispose' in value)) return undefined;
  const dispose = (value as { dispose: unknown }).dispose;
  return typeof dispose === 'function' ? () => (dispose as () => void).call(value) : undefined;
}

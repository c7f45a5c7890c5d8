// Metadata the fast path carries: alias scopes for distinct arrays, access groups and
// loop IDs for loops that carry no dependence (LLVM's LangRef: `!alias.scope`, `!noalias`,
// `!llvm.access.group`, `llvm.loop.parallel_accesses`, `llvm.loop.vectorize.enable`).
import { escapeString, type Module } from '../ir';

/**
 * The name that ties a fast path's metadata to its SCoP: its alias-scope domain and the
 * marker on its loops (passes/vectorized.ts reads both in opt's output for the report).
 */
export function fastPathName(fn: string, location: string): string {
  return `tsopt ${fn} ${location}`;
}

/** First operand of the loop-ID node `!{!"tsopt.loop", !"<fastPathName>", i32 <depth>}`. */
export const FAST_PATH_LOOP_MARKER = 'tsopt.loop';

export class MetadataTable {
  private readonly lists = new Map<string, string>();

  /** `!{!"llvm.loop.mustprogress"}`, shared by the fast path's loop IDs. */
  private mustProgress: string | undefined;

  constructor(readonly m: Module) {}

  private next(): number {
    let n = 0;
    for (const k of this.m.metadata.keys()) if (k >= n) n = k + 1;
    return n;
  }

  /** A new node; `body(self)` gets its own reference (`!N`) for self-referential nodes. */
  node(body: (self: string) => string): string {
    const n = this.next();
    this.m.metadata.set(n, '!{}');
    const self = `!${n}`;
    this.m.metadata.set(n, body(self));
    return self;
  }

  /** `!{!a, !b}`, shared between identical lists. */
  list(refs: readonly string[]): string {
    const body = `!{${refs.join(', ')}}`;
    let ref = this.lists.get(body);
    if (!ref) {
      ref = this.node(() => body);
      this.lists.set(body, ref);
    }
    return ref;
  }

  /** An alias-scope domain and one scope per name in it. */
  scopes(domainName: string, names: readonly string[]): string[] {
    const domain = this.node((self) => `distinct !{${self}, !${JSON.stringify(domainName)}}`);
    return names.map((n) => this.node((self) => `distinct !{${self}, ${domain}, !${JSON.stringify(n)}}`));
  }

  accessGroup(): string {
    return this.node(() => 'distinct !{}');
  }

  /** The loop ID of a loop whose iterations touch no common memory (vectorize: innermost loops). */
  parallelLoop(group: string, vectorize: boolean): string {
    const parallel = this.node(() => `!{!"llvm.loop.parallel_accesses", ${group}}`);
    const extra = vectorize ? [this.node(() => '!{!"llvm.loop.vectorize.enable", i1 true}')] : [];
    return this.node((self) => `distinct !{${[self, parallel, ...extra].join(', ')}}`);
  }

  /**
   * The loop ID of a fast-path loop at `depth` (0: outermost) of the SCoP named `scop`: a
   * `tsopt.loop` marker, and `llvm.loop.parallel_accesses` when `group` says its iterations
   * touch no common memory. opt-14's loop passes keep operands they do not know when they add
   * theirs (`llvm.loop.isvectorized`, `llvm.loop.unroll.runtime.disable`; test/cli/vectorized.test.ts).
   * Every fast-path loop is `llvm.loop.mustprogress` (isl's AST loops end; clang marks C11 loops
   * so too): with it scalar evolution counts a loop exiting on `c <= min(..)` whose bound it
   * cannot range (a wavefront's tile loops around the point loops, transform/wavefront.ts);
   * without it the loop vectorizer refused fdtd-2d's point loops there ("could not determine
   * number of loop iterations"), 3.7x the instructions of the plain tile order. `properties`:
   * further operands (nodes of this table), as the row jam's unroll count (codegen/row-jam.ts).
   */
  fastPathLoop(scop: string, depth: number, group: string | undefined, properties: readonly string[] = []): string {
    const marker = this.node(() => `!{!"${FAST_PATH_LOOP_MARKER}", !"${escapeString(scop)}", i32 ${depth}}`);
    const progress = (this.mustProgress ??= this.node(() => '!{!"llvm.loop.mustprogress"}'));
    const parallel = group ? [this.node(() => `!{!"llvm.loop.parallel_accesses", ${group}}`)] : [];
    return this.node((self) => `distinct !{${[self, marker, progress, ...parallel, ...properties].join(', ')}}`);
  }
}

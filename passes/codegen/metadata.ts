// Metadata the fast path carries: alias scopes for distinct arrays, access groups and
// loop IDs for loops that carry no dependence (LLVM's LangRef: `!alias.scope`, `!noalias`,
// `!llvm.access.group`, `llvm.loop.parallel_accesses`, `llvm.loop.vectorize.enable`).
import type { Module } from '../../ir';

export class MetadataTable {
  private readonly lists = new Map<string, string>();

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
}

// Operand-tree forwarding (the DeLICM paper's Listing 9, for speculatable trees):
// a value that crosses statements but is computed, without memory or side effects,
// from values every statement has (constants, arguments, values defined before the
// SCoP) can be recomputed where it is used. Its scalar reads go away, and its write
// too once nobody reads it. Exact by construction: such a tree has one value for the
// whole SCoP. (Reloads, Listing 10, are reload.ts.)
import type { Instruction, Value } from '../../ir';
import type { AccessEvent, Knowledge } from './knowledge';

/** Opcodes that compute a value from their operands alone and cannot trap or write. */
const speculatable = new Set([
  'fadd', 'fsub', 'fmul', 'fdiv', 'frem', 'fneg', 'add', 'sub', 'mul', 'shl', 'and', 'or', 'xor',
  'sext', 'zext', 'trunc', 'sitofp', 'uitofp', 'fpext', 'fptrunc', 'bitcast', 'icmp', 'fcmp', 'select', 'getelementptr',
]);

export interface Forwarding {
  /** Scalar reads removed (the paper's "forwards"). */
  readonly forwards: number;
  /** Per statement (by name), the values it now recomputes, operands first: the trees code generation copies into it. */
  readonly trees: ReadonlyMap<string, readonly Instruction[]>;
  /** Scalar locations forwarded entirely (no read left): coalescing leaves them alone. */
  readonly locations: ReadonlySet<string>;
}

/** Forwards every value scalar whose operand tree is speculatable and SCoP-invariant; marks its events removed. */
export function forwardOperandTrees(k: Knowledge): Forwarding {
  const scopBlocks = new Set(k.model.scop.blocks);
  const trees = new Map<string, Instruction[]>();
  const locations = new Set<string>();
  let forwards = 0;
  // The tree of `v`, operands first, or undefined when some node is not speculatable or varies in the SCoP.
  const treeOf = (v: Value, depth: number): Instruction[] | undefined => {
    if (v.kind !== 'instruction') return v.kind === 'argument' || v.kind.startsWith('const-') || v.kind === 'zeroinitializer' || v.kind === 'global' || v.kind === 'function' ? [] : undefined;
    if (!v.parent || !scopBlocks.has(v.parent)) return [];
    if (depth > 8 || !speculatable.has(v.opcode)) return undefined;
    const out: Instruction[] = [];
    for (const op of v.operands) {
      const sub = treeOf(op, depth + 1);
      if (!sub) return undefined;
      for (const i of sub) if (!out.includes(i)) out.push(i);
    }
    out.push(v);
    return out;
  };
  const byLocation = new Map<string, AccessEvent[]>();
  for (const e of k.events) {
    if (e.access.scalar?.kind !== 'value') continue;
    const list = byLocation.get(e.location) ?? [];
    list.push(e);
    byLocation.set(e.location, list);
  }
  for (const [location, events] of byLocation) {
    const tree = treeOf(events[0]!.access.scalar!.value, 0);
    if (!tree || tree.length === 0) continue;
    for (const e of events) {
      if (e.kind !== 'read') continue;
      e.removed = true;
      forwards++;
      const list = trees.get(e.statement.name) ?? [];
      for (const i of tree) if (!list.includes(i)) list.push(i);
      trees.set(e.statement.name, list);
    }
    for (const e of events) if (e.kind === 'write') e.removed = true;
    locations.add(location);
  }
  return { forwards, trees, locations };
}

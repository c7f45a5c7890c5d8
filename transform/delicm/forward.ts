// Operand-tree forwarding (the DeLICM paper's Listing 9; Polly's ForwardOpTree): a value that
// crosses statements can be recomputed where it is used when its operand tree is
//   - pure (no memory, no side effects) over values every statement has (constants,
//     arguments, values defined before the SCoP),
//   - induction variables of loops around the reading statement too (SSA: the read sees the
//     write of the same iteration of every loop around both, so the counter has the same value),
//   - and at most one load of an array the SCoP never writes (known content: the element
//     holds at the read what it held at the load). The read becomes a read of that element,
//     the load's instance of the write the read sees (a mapped read standing for the load),
//     and the rest of the tree is recomputed on it.
// Its scalar reads go away, and its write too once nobody reads it. (Reloads, Listing 10,
// where the scalar is the load itself, are reload.ts.)
import { DimType } from 'isl-wasm';
import { calledFunction, type Instruction, type Value } from '../../ir';
import type { AccessEvent, Knowledge } from './knowledge';

/** Opcodes that compute a value from their operands alone and cannot trap or write. */
const speculatable = new Set([
  'fadd', 'fsub', 'fmul', 'fdiv', 'frem', 'fneg', 'add', 'sub', 'mul', 'shl', 'and', 'or', 'xor',
  'sext', 'zext', 'trunc', 'sitofp', 'uitofp', 'fpext', 'fptrunc', 'bitcast', 'icmp', 'fcmp', 'select', 'getelementptr',
]);

/** Calls to intrinsics that compute from their operands alone and cannot trap (-O3 contracts a * b + c to fmuladd). */
export const PURE_INTRINSIC = /^llvm\.(fmuladd|fma|fabs|copysign|minnum|maxnum|smax|smin|umax|umin)\./;

export interface Forwarding {
  /** Scalar reads removed (the paper's "forwards"). */
  readonly forwards: number;
  /** Per statement (by name), the values it now recomputes, operands first: the trees code generation copies into it. */
  readonly trees: ReadonlyMap<string, readonly Instruction[]>;
  /** Scalar locations forwarded entirely (no read left): coalescing leaves them alone. */
  readonly locations: ReadonlySet<string>;
}

/** Forwards every value scalar whose operand tree qualifies (see above); marks its events removed or relocated. */
export function forwardOperandTrees(k: Knowledge): Forwarding {
  const scopBlocks = new Set(k.model.scop.blocks);
  const trees = new Map<string, Instruction[]>();
  const locations = new Set<string>();
  // Header PHIs the model keeps as scalars are not counters.
  const phiScalars = new Set(k.model.arrays.filter((a) => a.kind === 'phi').map((a) => a.value));
  let forwards = 0;
  const byLocation = new Map<string, AccessEvent[]>();
  for (const e of k.events) {
    if (e.access.scalar?.kind !== 'value') continue;
    const list = byLocation.get(e.location) ?? [];
    list.push(e);
    byLocation.set(e.location, list);
  }
  for (const [location, events] of byLocation) {
    const writes = events.filter((e) => e.kind === 'write');
    const reads = events.filter((e) => e.kind === 'read');
    const loads: Instruction[] = [];
    // The tree of `v`, operands first (counters and the load are leaves), or undefined when some node does not qualify.
    const treeOf = (v: Value, depth: number): Instruction[] | undefined => {
      if (v.kind !== 'instruction') return v.kind === 'argument' || v.kind.startsWith('const-') || v.kind === 'zeroinitializer' || v.kind === 'global' || v.kind === 'function' ? [] : undefined;
      if (!v.parent || !scopBlocks.has(v.parent)) return [];
      if (v.opcode === 'phi') {
        const counter = !phiScalars.has(v) && reads.every((r) => r.statement.loops.some((l) => l.loop.header === v.parent));
        return counter ? [] : undefined;
      }
      if (v.opcode === 'load') {
        if (loads.length > 0 && !loads.includes(v)) return undefined;
        loads.push(v);
        return [];
      }
      const pureCall = v.opcode === 'call' && PURE_INTRINSIC.test(calledFunction(v)?.name ?? '');
      if (depth > 8 || !(speculatable.has(v.opcode) || pureCall)) return undefined;
      const out: Instruction[] = [];
      for (const op of v.operands) {
        const sub = treeOf(op, depth + 1);
        if (!sub) return undefined;
        for (const i of sub) if (!out.includes(i)) out.push(i);
      }
      out.push(v);
      return out;
    };
    const tree = treeOf(events[0]!.access.scalar!.value, 0);
    if (!tree || tree.length === 0) continue;
    // With a load: each read's element (undefined: the tree is not forwarded).
    const elements = loads.length === 0 ? undefined : loadedElements(k, loads[0]!, writes, reads);
    if (loads.length > 0 && !elements) continue;
    reads.forEach((e, n) => {
      if (elements) {
        e.location = elements.location;
        e.relation = elements.relations[n]!;
        e.standsFor = loads[0]!;
      } else {
        e.removed = true;
      }
      forwards++;
      const list = trees.get(e.statement.name) ?? [];
      for (const i of tree) if (!list.includes(i)) list.push(i);
      trees.set(e.statement.name, list);
    });
    for (const e of writes) e.removed = true;
    locations.add(location);
  }
  return { forwards, trees, locations };
}

/**
 * For a tree whose one load is `load`: per read of the scalar, { ReadTag[i..] -> Element[..] },
 * the element the reaching write's instance loaded. Undefined unless the scalar has one write,
 * in the load's statement, the load is a must read of an array no statement of the SCoP writes
 * (so the element holds the same content at every read), and each read sees one element.
 */
function loadedElements(k: Knowledge, load: Instruction, writes: readonly AccessEvent[], reads: readonly AccessEvent[]): { location: string; relations: AccessEvent['relation'][] } | undefined {
  if (writes.length !== 1) return undefined;
  const write = writes[0]!;
  const loadEvent = k.events.find((e) => e.kind === 'read' && e.access.instruction === load && e.statement === write.statement);
  if (!loadEvent || loadEvent.access.scalar || loadEvent.access.certainty !== 'must') return undefined;
  const array = loadEvent.location;
  if (k.mayWritten.has(array) || k.events.some((e) => e.kind === 'write' && e.location === array)) return undefined;
  // { WriteTag[i..] -> Element[..] }: the element the write's statement instance loaded
  const loaded = loadEvent.relation.setTupleName(DimType.in, write.tag).toUnionMap();
  const relations: AccessEvent['relation'][] = [];
  for (const r of reads) {
    // { ReadTag[i..] } and { ReadTag[i..] -> Element[..] } through the write the read sees
    const instances = r.relation.domain().toUnionSet();
    const element = k.reaching.intersectRange(instances).reverse().applyRange(loaded);
    if (!element.domain().isEqual(instances) || !element.isSingleValued()) return undefined;
    relations.push(element.asMap());
  }
  return { location: array, relations };
}

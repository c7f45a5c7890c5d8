// Values live after a versioned SCoP (Polly's escaping values and exit PHIs, merged as in
// its BlockGenerator::finalizeSCoP):
//
//   check ──► fast path ─────────────── fastEnd: reload each slot ──┐
//     └─────► original region ──(every edge that left it)───────────┴─► merge ──► exit
//
// Code after the SCoP must see one value whichever path ran, so
//   - SCoP-invariant, side-effect-free instructions outside the SCoP's loops (-O3's bitcasts,
//     GEPs and comparisons in the region's first blocks) are hoisted before the check, where
//     they dominate both paths and everything after: no slot, no merge;
//   - every other value used after the region is an escaping scalar write in the model: the
//     fast path's copy of its statement stores it to the value's slot; `merge` gets a PHI of
//     the original value (from the region's exiting edges) and the slot's reload (fast path),
//     and every use after the region reads that PHI;
//   - the exit block's PHIs take one edge from `merge`: a PHI of the values the region's
//     edges brought and the reload of the PHI's slot (every such edge is a PHI write in the
//     model), or the single value every edge brings.
// A reload is right because the original code is in SSA form: a use after the region is
// dominated by its definition, so whenever the use runs the defining statement ran on the
// original path, and the fast path (exact domains under the check) ran the same instances in
// the same order, the last one last. Where the definition did not run, the use does not
// run either and the merged value is never looked at.
import {
  IrBuilder, addIncoming, createBlock, incomingValueFor, insertBlock, moveBefore, removeOperands, replaceUsesWithIf,
  setOperand, successors, terminator, undef, constantsEqual, type BasicBlock, type Instruction, type Use, type Value,
} from '../ir';
import type { ScopArray, ScopModel } from '../polyhedral/model';
import { UnsupportedCodeError } from './block-generator';
import { reachedErrorBlocks } from '../analysis/error-blocks';

/** An exit-block PHI and what the region's edges bring it. */
interface ExitPhi {
  readonly phi: Instruction;
  /** The PHI's location in the model when the edges bring different values; undefined when they bring `same`. */
  readonly array: ScopArray | undefined;
  readonly same: Value | undefined;
}

export interface LiveOuts {
  /** Instructions to hoist before the check, operands first. */
  readonly hoisted: readonly Instruction[];
  /** Values used after the region, each with its (escaping) location in the model. */
  readonly values: readonly { readonly value: Instruction; readonly array: ScopArray }[];
  readonly exitPhis: readonly ExitPhi[];
  /** Values only debug intrinsics after the region name: they get `undef` there (as LLVM salvages). */
  readonly debugOnly: readonly Instruction[];
}

/** Opcodes that compute a value from their operands alone: they cannot trap, write or read memory. */
const HOISTABLE = new Set([
  'add', 'sub', 'mul', 'shl', 'lshr', 'ashr', 'and', 'or', 'xor', 'fadd', 'fsub', 'fmul', 'fdiv', 'fneg',
  'trunc', 'zext', 'sext', 'sitofp', 'uitofp', 'fptrunc', 'fpext', 'bitcast', 'ptrtoint', 'inttoptr',
  'getelementptr', 'icmp', 'fcmp', 'select', 'freeze',
]);

function inRegion(v: Value, region: ReadonlySet<BasicBlock>): v is Instruction {
  return v.kind === 'instruction' && v.parent !== undefined && region.has(v.parent);
}

/** The instruction a use sits in (a metadata operand: the call using the metadata). */
function useSite(u: Use): Instruction | undefined {
  const user = u.user;
  if (user.kind === 'instruction') return user;
  if (user.kind === 'metadata') {
    const call = user.uses[0]?.user;
    return call?.kind === 'instruction' ? call : undefined;
  }
  return undefined;
}

/** True for a use in an exit PHI on an edge from the region (merged separately). */
function isExitEdge(u: Use, region: ReadonlySet<BasicBlock>): boolean {
  const user = u.user;
  return user.kind === 'instruction' && user.opcode === 'phi' && !region.has(user.parent!) && region.has(user.incomingBlocks![u.index]!);
}

/** True when code after the region uses `v` (debug intrinsics too when `debug`); error blocks run on the original path only. */
function usedAfter(v: Instruction, region: ReadonlySet<BasicBlock>, debug: boolean, errorBlocks: ReadonlySet<BasicBlock>): boolean {
  return v.uses.some((u) => {
    if (!debug && u.user.kind !== 'instruction') return false;
    const site = useSite(u);
    return site?.parent !== undefined && !region.has(site.parent) && !errorBlocks.has(site.parent) && !isExitEdge(u, region);
  });
}

/**
 * What the code after the SCoP needs from it, and how to give it; throws
 * `UnsupportedCodeError` when the model lacks a write the merge would reload.
 */
export function planLiveOuts(model: ScopModel, region: ReadonlySet<BasicBlock>, nameOf: (v: Value) => string): LiveOuts {
  const exit = model.scop.exit;
  if (!exit) return { hoisted: [], values: [], exitPhis: [], debugOnly: [] };
  const inLoop = (b: BasicBlock): boolean => model.loops.some((l) => l.loop.containsBlock(b));
  // Hoistable: pure, outside the SCoP's loops, operands from before the region or hoistable.
  const verdict = new Map<Instruction, boolean>();
  const hoistable = (v: Instruction, depth: number): boolean => {
    const known = verdict.get(v);
    if (known !== undefined) return known;
    const ok = depth < 16 && HOISTABLE.has(v.opcode) && !inLoop(v.parent!)
      && v.operands.every((op) => !inRegion(op, region) || hoistable(op, depth + 1));
    verdict.set(v, ok);
    return ok;
  };
  const wanted = new Set<Instruction>();
  const want = (v: Instruction): void => {
    if (wanted.has(v)) return;
    for (const op of v.operands) if (inRegion(op, region)) want(op);
    wanted.add(v);
  };
  const exitEdgeValues = phisOf(exit).flatMap((phi) => phi.operands.filter((_, k) => region.has(phi.incomingBlocks![k]!)));
  const escaping: Instruction[] = [];
  const debugOnly: Instruction[] = [];
  const errorBlocks = reachedErrorBlocks(model.scop);
  for (const block of model.scop.blocks) {
    for (const inst of block.instructions) {
      const afterwards = usedAfter(inst, region, false, errorBlocks);
      const debugged = !afterwards && usedAfter(inst, region, true, errorBlocks);
      if (!afterwards && !debugged && !exitEdgeValues.includes(inst)) continue;
      if (hoistable(inst, 0)) want(inst);
      else if (afterwards) escaping.push(inst);
      else if (debugged) debugOnly.push(inst);
    }
  }
  // Program order of the region (reverse post-order, blocks' order within), operands first.
  const order = model.scop.blocks.flatMap((b) => b.instructions);
  const hoisted = [...wanted].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  const staysInside = (v: Value): boolean => inRegion(v, region) && !wanted.has(v as Instruction);

  const writes = (array: ScopArray, block: BasicBlock, incoming?: Value): boolean =>
    model.statements.some((st) => st.block === block && st.accesses.some((a) => a.kind === 'write' && a.array === array
      && (incoming === undefined || (a.scalar?.incoming !== undefined && constantsEqual(a.scalar.incoming, incoming)))));
  const values = escaping.map((value) => {
    const array = model.arrays.find((a) => a.kind === 'value' && a.value === value);
    if (!array || !writes(array, value.parent!)) throw new UnsupportedCodeError(`${nameOf(value)} (${value.opcode}) is used after the SCoP, but the model has no write of it`);
    return { value, array };
  });
  const exitPhis = phisOf(exit).flatMap((phi): ExitPhi[] => {
    const edges = phi.operands.map((v, k) => [v, phi.incomingBlocks![k]!] as const).filter(([, from]) => region.has(from));
    if (edges.length === 0) return [];
    const first = edges[0]![0];
    if (edges.every(([v]) => !staysInside(v) && constantsEqual(v, first))) return [{ phi, array: undefined, same: first }];
    const array = model.arrays.find((a) => a.kind === 'phi' && a.value === phi);
    for (const [v, from] of edges) {
      if (!array || !writes(array, from, v)) throw new UnsupportedCodeError(`the PHI ${nameOf(phi)} after the SCoP takes ${nameOf(v)} from ${nameOf(from)}, which the model does not write`);
    }
    return [{ phi, array, same: undefined }];
  });
  return { hoisted, values, exitPhis, debugOnly };
}

/** Moves the hoisted instructions before `pred`'s terminator; returns how to put them back. */
export function hoistLiveOuts(plan: LiveOuts, pred: BasicBlock): () => void {
  const places = plan.hoisted.map((inst) => {
    const block = inst.parent!;
    return { inst, block, next: block.instructions[block.instructions.indexOf(inst) + 1]! };
  });
  const t = terminator(pred)!;
  for (const { inst } of places) moveBefore(inst, t);
  return () => {
    for (const { inst, next } of [...places].reverse()) moveBefore(inst, next);
  };
}

/**
 * Ends the fast path at `fastEnd` and joins it with the original region in a new block
 * before `exit`, as the header describes. `slots` are the model's scalar slots.
 */
export function mergeLiveOuts(plan: LiveOuts, model: ScopModel, region: ReadonlySet<BasicBlock>, fastEnd: BasicBlock, slots: ReadonlyMap<ScopArray, Instruction>, name: string): BasicBlock {
  const exit = model.scop.exit!;
  const fn = exit.parent!;
  const merge = insertBlock(fn, createBlock(name), fn.blocks.indexOf(exit));
  const errorBlocks = reachedErrorBlocks(model.scop);
  const fb = new IrBuilder(fastEnd);
  const mb = new IrBuilder(merge);
  const reload = (array: ScopArray, type: Instruction['type']): Value => fb.load(type, slots.get(array)!);
  // Every edge that left the region now enters `merge` (a block twice for two edges).
  const exiting: BasicBlock[] = [];
  for (const block of model.scop.blocks) {
    const t = terminator(block)!;
    t.operands.forEach((op, k) => {
      if (op !== exit) return;
      setOperand(t, k, merge);
      exiting.push(block);
    });
  }
  for (const e of plan.exitPhis) {
    let value: Value;
    if (e.array === undefined) value = e.same!;
    else {
      const incoming: [Value, BasicBlock][] = exiting.map((from) => [incomingValueFor(e.phi, from)!, from]);
      incoming.push([reload(e.array, e.phi.type), fastEnd]);
      value = mb.phi(e.phi.type, `${e.phi.name ?? 'exit'}.merge`, incoming);
    }
    for (const from of new Set(exiting)) removeIncomingOf(e.phi, from);
    addIncoming(e.phi, value, merge);
  }
  for (const { value, array } of plan.values) {
    const incoming: [Value, BasicBlock][] = exiting.map((from) => [dominatesInRegion(value.parent!, from, model.scop.entry, region) ? value : undef(value.type), from]);
    incoming.push([reload(array, value.type), fastEnd]);
    const phi = mb.phi(value.type, `${value.name ?? 'v'}.merge`, incoming);
    replaceUsesWithIf(value, phi, (u) => {
      const site = useSite(u);
      return site?.parent !== undefined && !region.has(site.parent) && !errorBlocks.has(site.parent) && site.parent !== merge;
    });
  }
  for (const value of plan.debugOnly) {
    replaceUsesWithIf(value, undef(value.type), (u) => {
      const site = useSite(u);
      return u.user.kind === 'metadata' && site?.parent !== undefined && !region.has(site.parent);
    });
  }
  // Exit PHIs with no edge handled above (none came from the region) keep theirs; others lost the region's edges.
  for (const phi of phisOf(exit)) if (!plan.exitPhis.some((e) => e.phi === phi)) for (const from of new Set(exiting)) removeIncomingOf(phi, from);
  fb.br(merge);
  mb.br(exit);
  return merge;
}

/** Removes `phi`'s entries for `from` (one PHI only, unlike `removePhiIncoming`). */
function removeIncomingOf(phi: Instruction, from: BasicBlock): void {
  const blocks = phi.incomingBlocks!;
  for (let k = blocks.length - 1; k >= 0; k--) {
    if (blocks[k] !== from) continue;
    removeOperands(phi, k, 1);
    blocks.splice(k, 1);
  }
}

function phisOf(block: BasicBlock): Instruction[] {
  const out: Instruction[] = [];
  for (const inst of block.instructions) {
    if (inst.opcode !== 'phi') break;
    out.push(inst);
  }
  return out;
}

/** True when every path from `entry` to `to` inside the region passes `def`. */
function dominatesInRegion(def: BasicBlock, to: BasicBlock, entry: BasicBlock, region: ReadonlySet<BasicBlock>): boolean {
  if (def === to || def === entry) return true;
  const seen = new Set<BasicBlock>([def]);
  const work = [entry];
  seen.add(entry);
  while (work.length > 0) {
    const b = work.pop()!;
    if (b === to) return false;
    for (const s of successors(b)) {
      if (!region.has(s) || seen.has(s)) continue;
      seen.add(s);
      work.push(s);
    }
  }
  return true;
}

// `--profile-use`: specialized copies of a region for its hot parameter values, behind a dispatch
// on the region's entering edge (SPolly's second run, ahead of time):
//
//   entering ──► tsopt.dispatch ──(params == hot 0)──► copy 0, hot values as constants ──┐
//                     │ ──────────(params == hot 1)──► copy 1 ...                       ──┤
//                     └──────────(otherwise)─────────► the region as it was ─────────────┴─► exit
//
// The copies are plain IR with constants where the parameters were; the passes after this one
// (versioning) model every copy afresh, so each copy becomes a SCoP of its own with exact bounds
// and subscripts, and gets its own `if (check) fast path else copy`, and the original region
// keeps its general fast path. Values the region defines and code after it uses get a phi in
// the exit block over the original and the copies.
import {
  IrBuilder, addIncoming, constFalse, removePhiIncoming, replaceAllUsesWith, cloneBlocks, constInt, createBlock, insertBlock, mapValue, phis, predecessors, replacePhiIncomingBlock, replaceUsesWithIf,
  splitEdge, successors, terminator, eraseInstruction, type BasicBlock, type Instruction, type IntegerType, type IrFunction, type Value, type ValueMap,
} from '../ir';
import { PROFILE_DISPATCH_METADATA } from '../analysis/scop-detection-types';
import { MetadataTable } from './metadata';
import { evaluateInteger, foldConstantBranches } from './profile-fold';

export interface SpecializedRegion {
  readonly fn: IrFunction;
  readonly entering: BasicBlock;
  readonly entry: BasicBlock;
  readonly exit: BasicBlock | undefined;
  readonly blocks: readonly BasicBlock[];
  readonly parameters: readonly Value[];
}

/** What `specializeRegion` made: the dispatch block and each copy's entry block. */
export interface Specialization {
  readonly dispatch: BasicBlock;
  /** The dispatch block that decides for copy k (the last one goes to the original region). */
  readonly tests: readonly BasicBlock[];
  readonly copies: readonly BasicBlock[];
  /** The original region's entry (the last test's other target) and exit. */
  readonly entry: BasicBlock;
  readonly exit: BasicBlock | undefined;
}

/** Why the region cannot be specialized, or undefined. */
export function specializationProblem(r: SpecializedRegion): string | undefined {
  const inside = new Set(r.blocks);
  const liveOut = r.blocks.some((b) => b.instructions.some((i) => i.uses.some((u) => {
    const user = u.user as Instruction;
    return user.kind === 'instruction' && user.parent !== undefined && !inside.has(user.parent) && !(user.opcode === 'phi' && user.parent === r.exit);
  })));
  if (!liveOut) return undefined;
  if (r.exit === undefined) return 'values of the region are used after it, and it has no exit block';
  if (predecessors(r.exit).some((p) => !inside.has(p))) return 'values of the region are used after it, and its exit is also reached from elsewhere';
  return undefined;
}

/**
 * Copies the region once per tuple of `hot` (one constant per parameter) and dispatches on the
 * parameters. The caller checked `specializationProblem`.
 */
export function specializeRegion(r: SpecializedRegion, hot: readonly (readonly bigint[])[], label: string): Specialization {
  const { fn, entry, exit } = r;
  const inside = new Set(r.blocks);
  const dispatch = splitEdge(r.entering, entry, `${label}.dispatch`);
  eraseInstruction(terminator(dispatch)!);
  const maps: ValueMap[] = [];
  const copies: BasicBlock[] = [];
  let at = Math.max(...r.blocks.map((b) => fn.blocks.indexOf(b))) + 1;
  hot.forEach((values, k) => {
    const map: ValueMap = new Map();
    r.parameters.forEach((p, j) => map.set(p, constInt(p.type as IntegerType, values[j]!)));
    // Values computed before the region from the parameters alone are constants in the copy too.
    const known = new Map<Value, bigint>(r.parameters.map((p, j) => [p, values[j]!]));
    // A parameter that widens a value fixes that value too (clang's `zext i32 %n to i64` and `%n`).
    r.parameters.forEach((p, j) => {
      if (p.kind === 'instruction' && (p.opcode === 'zext' || p.opcode === 'sext') && p.operands[0]!.type.kind === 'int') {
        const from = p.operands[0]!;
        const narrow = BigInt.asIntN((from.type as IntegerType).bits, values[j]!);
        if (!known.has(from)) known.set(from, narrow);
      }
    });
    for (const v of outsideOperands(r.blocks, inside)) {
      if (map.has(v)) continue;
      const c = evaluateInteger(v, known);
      if (c !== undefined) map.set(v, constInt(v.type as IntegerType, c));
    }
    const blocks = cloneBlocks(r.blocks, map, `.spec${k}`);
    for (const b of blocks) insertBlock(fn, b, at++);
    maps.push(map);
    copies.push(map.get(entry) as BasicBlock);
  });
  const mark = new MetadataTable(fn.parent).node(() => '!{}');
  // The tests, one block each after the first: `params == hot k` → copy k, else the next test.
  const tests: BasicBlock[] = [dispatch];
  for (let k = 1; k < hot.length; k++) tests.push(insertBlock(fn, createBlock(`${label}.dispatch${k}`), fn.blocks.indexOf(dispatch) + k));
  hot.forEach((values, k) => {
    const b = new IrBuilder(tests[k]!);
    const same = r.parameters.map((p, j) => b.icmp('eq', p, constInt(p.type as IntegerType, values[j]!))).reduce((x, y) => b.and(x, y));
    const br = b.condBr(same, copies[k]!, k + 1 < hot.length ? tests[k + 1]! : entry);
    // A mark SCoP detection admits in no region: else the affine tests `params == hot` let one
    // SCoP swallow the dispatch, the copies and the original, and its single fast path,
    // scheduled as a whole, lost each version's own (strided's s = 4 copy ran at clang's speed,
    // the general fast path 2.5x faster).
    br.metadata.push({ name: PROFILE_DISPATCH_METADATA, ref: mark });
    replacePhiIncomingBlock(copies[k]!, dispatch, tests[k]!);
  });
  // With no hot tuple the dispatch goes straight on; else the last test is the original's predecessor.
  if (hot.length === 0) new IrBuilder(dispatch).br(entry);
  else replacePhiIncomingBlock(entry, dispatch, tests[hot.length - 1]!);
  if (exit) {
    const exitPreds = predecessors(exit).filter((p) => inside.has(p));
    // Phis of the exit take each copy's value along the copy's edge.
    for (const phi of phis(exit)) {
      const incoming = phi.incomingBlocks!.map((b, i) => [phi.operands[i]!, b] as const).filter(([, b]) => inside.has(b));
      for (const map of maps) for (const [v, b] of incoming) addIncoming(phi, mapValue(v, map), map.get(b) as BasicBlock);
    }
    // Values defined in the region and used after it: a phi over the original and the copies.
    let outs = 0;
    const copied = new Set<BasicBlock>(maps.flatMap((m) => r.blocks.map((b) => m.get(b) as BasicBlock)));
    for (const b of r.blocks) {
      for (const inst of b.instructions) {
        const outsideUse = (user: Instruction) => user.parent !== undefined && !inside.has(user.parent) && !copied.has(user.parent) && !(user.opcode === 'phi' && user.parent === exit && phiFromRegion(user, inst, inside, copied));
        if (!inst.uses.some((u) => outsideUse(u.user as Instruction))) continue;
        const phi = new IrBuilder().positionAtStart(exit).phi(inst.type, `${label}.out${outs++}`, [
          ...exitPreds.map((p) => [inst, p] as [Value, BasicBlock]),
          ...maps.flatMap((m) => exitPreds.map((p) => [m.get(inst)!, m.get(p) as BasicBlock] as [Value, BasicBlock])),
        ]);
        replaceUsesWithIf(inst, phi, (u) => u.user !== phi && outsideUse(u.user as Instruction));
      }
    }
  }
  nameUnnamed(tests, label);
  maps.forEach((m, k) => nameUnnamed(r.blocks.map((b) => m.get(b) as BasicBlock), `${label}.spec${k}`));
  maps.forEach((m, k) => foldConstantBranches(r.blocks.map((b) => m.get(b) as BasicBlock), copies[k]!));
  return { dispatch, tests, copies, entry, exit };
}

/**
 * Names every unnamed block and value of `blocks` `<prefix>.N`: the numbers LLVM gives unnamed
 * ones would shift, and with them the locations (`f:%12`) of the SCoPs after the new code,
 * which the report matches against the input's.
 */
export function nameUnnamed(blocks: readonly BasicBlock[], prefix: string): void {
  let n = 0;
  for (const b of blocks) {
    if (b.name === undefined || /^\d+$/.test(b.name)) b.name = `${prefix}.b${n++}`;
    for (const i of b.instructions) if (i.type.kind !== 'void' && (i.name === undefined || /^\d+$/.test(i.name))) i.name = `${prefix}.v${n++}`;
  }
}

/**
 * After versioning: a copy that got no fast path while the general code did is worse than the
 * general code (strided's copy for s = 4 ran at clang's speed, the original's fast path 2.5x
 * faster), so its test is made to fall through; the copy, unreachable, is left to opt's clean-up.
 * A version counts as having a fast path when versioning put a check block in it.
 * Returns the copies given up.
 */
export function dropCopiesWithoutFastPath(s: Specialization): number {
  if (!hasFastPath(s.entry, s.exit)) return 0;
  let dropped = 0;
  s.tests.forEach((test, k) => {
    const br = terminator(test)!;
    if (br.operands[1] !== s.copies[k] || hasFastPath(s.copies[k]!, s.exit)) return;
    const next = br.operands[2] as BasicBlock;
    const cond = br.operands[0]!;
    eraseInstruction(br);
    // What still reads the test (--rtc-stats' counters) sees it fail: the copy never runs.
    replaceAllUsesWith(cond, constFalse());
    new IrBuilder(test).br(next);
    removePhiIncoming(s.copies[k]!, test);
    dropped++;
  });
  return dropped;
}

/** Whether versioning put a check (`tsopt.scopN.check`) in the code from `from` up to `exit`. */
function hasFastPath(from: BasicBlock, exit: BasicBlock | undefined): boolean {
  const seen = new Set<BasicBlock>([from]);
  const work = [from];
  while (work.length > 0) {
    const b = work.pop()!;
    if (/^tsopt\.scop\d+\.check$/.test(b.name ?? '')) return true;
    for (const n of successors(b)) {
      if (n === exit || seen.has(n)) continue;
      seen.add(n);
      work.push(n);
    }
  }
  return false;
}

/** Integer instructions defined outside the region that its instructions use. */
function outsideOperands(blocks: readonly BasicBlock[], inside: ReadonlySet<BasicBlock>): Set<Value> {
  const out = new Set<Value>();
  for (const b of blocks) for (const i of b.instructions) {
    for (const o of i.operands) if (o.kind === 'instruction' && o.type.kind === 'int' && o.parent !== undefined && !inside.has(o.parent)) out.add(o);
  }
  return out;
}

/** True when every use of `inst` by `phi` (in the exit) comes along an edge from the region or a copy. */
function phiFromRegion(phi: Instruction, inst: Instruction, inside: ReadonlySet<BasicBlock>, copied: ReadonlySet<BasicBlock>): boolean {
  return phi.operands.every((o, i) => o !== inst || inside.has(phi.incomingBlocks![i]!) || copied.has(phi.incomingBlocks![i]!));
}

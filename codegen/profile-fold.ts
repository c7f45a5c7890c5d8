// `--profile-use`: the values a specialized copy reads from before its region that its constants
// decide. Clang computes some of a region's facts about its parameters ahead of it (a runtime-
// unrolled loop's `n & 1 == 0`, a trip count `zext(n) - 1`); with the parameters constants,
// those are constants too, and the copy must see them as such, else its remainder loop hangs on
// an unknown condition and the copy stays rejected (test/profile/fixtures/triangle.c). Then the
// branches of the copy its constants decide go one way, and what no longer runs is deleted.
import { IrBuilder, constInt, dropAllOperands, replaceAllUsesWith, eraseBlock, eraseInstruction, removePhiIncoming, successors, terminator, type BasicBlock, type Instruction, type IntegerType, type Value } from '../ir';

/** At most this many instructions are evaluated for one value (a chain of integer arithmetic). */
const MAX_STEPS = 64;

/** `v` as a signed value of its width (an i1 as 0 or 1), as `constInt` stores it. */
function norm(bits: number, v: bigint): bigint {
  return bits === 1 ? v & 1n : BigInt.asIntN(bits, v);
}

/**
 * The integer value of `v` when it is computed, by integer arithmetic, comparisons, casts and
 * selects, from the values of `known` and constants only; undefined otherwise (a load, a call,
 * a phi, a division by zero).
 */
export function evaluateInteger(v: Value, known: ReadonlyMap<Value, bigint>): bigint | undefined {
  let steps = 0;
  const memo = new Map<Value, bigint | undefined>();
  const go = (x: Value): bigint | undefined => {
    if (x.type.kind !== 'int') return undefined;
    const k = known.get(x);
    if (k !== undefined) return k;
    if (x.kind === 'const-int') return x.value;
    if (x.kind !== 'instruction') return undefined;
    if (memo.has(x)) return memo.get(x);
    if (++steps > MAX_STEPS) return undefined;
    memo.set(x, undefined);
    const r = evaluateInstruction(x, go);
    memo.set(x, r);
    return r;
  };
  return go(v);
}

function evaluateInstruction(i: Instruction, go: (x: Value) => bigint | undefined): bigint | undefined {
  const bits = (i.type as IntegerType).bits;
  if (i.opcode === 'select') {
    const c = go(i.operands[0]!);
    return c === undefined ? undefined : go(i.operands[c !== 0n ? 1 : 2]!);
  }
  const ops: bigint[] = [];
  for (const o of i.operands) {
    const x = go(o);
    if (x === undefined) return undefined;
    ops.push(x);
  }
  const [a, b] = ops as [bigint, bigint];
  const inBits = i.operands[0]!.type.kind === 'int' ? i.operands[0]!.type.bits : bits;
  const sa = BigInt.asIntN(inBits, a);
  const sb = b === undefined ? 0n : BigInt.asIntN(inBits, b);
  const ua = BigInt.asUintN(inBits, a);
  const ub = b === undefined ? 0n : BigInt.asUintN(inBits, b);
  switch (i.opcode) {
    case 'add': return norm(bits, a + b);
    case 'sub': return norm(bits, a - b);
    case 'mul': return norm(bits, a * b);
    case 'and': return norm(bits, ua & ub);
    case 'or': return norm(bits, ua | ub);
    case 'xor': return norm(bits, ua ^ ub);
    case 'shl': return ub < BigInt(bits) ? norm(bits, ua << ub) : undefined;
    case 'lshr': return ub < BigInt(bits) ? norm(bits, ua >> ub) : undefined;
    case 'ashr': return ub < BigInt(bits) ? norm(bits, sa >> ub) : undefined;
    // BigInt division truncates toward zero, as sdiv and srem do.
    case 'udiv': return ub === 0n ? undefined : norm(bits, ua / ub);
    case 'urem': return ub === 0n ? undefined : norm(bits, ua % ub);
    case 'sdiv': return sb === 0n ? undefined : norm(bits, sa / sb);
    case 'srem': return sb === 0n ? undefined : norm(bits, sa % sb);
    case 'zext': return norm(bits, ua);
    case 'sext': return norm(bits, sa);
    case 'trunc': return norm(bits, a);
    case 'icmp': {
      const p = i.predicate as string;
      const [x, y] = p.startsWith('u') || p === 'eq' || p === 'ne' ? [ua, ub] : [sa, sb];
      const r = p === 'eq' ? x === y : p === 'ne' ? x !== y
        : p.endsWith('gt') ? x > y : p.endsWith('ge') ? x >= y : p.endsWith('lt') ? x < y : x <= y;
      return r ? 1n : 0n;
    }
    default: return undefined;
  }
}

/**
 * The integer instructions of `blocks` (a copy entered at `entry`) that compute constants are
 * replaced by them, the conditional branches whose condition is a constant become unconditional, and the blocks of the copy no longer reached
 * from `entry` are deleted (phis outside the copy lose their entries from them).
 */
export function foldConstantBranches(blocks: readonly BasicBlock[], entry: BasicBlock): void {
  const none = new Map<Value, bigint>();
  // Integer instructions of constants are constants: SCEV folds no `and` of two constants, and a
  // mask `(zext 128) & 0xfffffffe` left in the copy became a parameter that split its SCoP.
  for (const b of blocks) {
    for (const i of [...b.instructions]) {
      if (i.opcode === 'phi' || i.type.kind !== 'int') continue;
      const c = evaluateInteger(i, none);
      if (c === undefined) continue;
      replaceAllUsesWith(i, constInt(i.type, c));
      eraseInstruction(i);
    }
  }
  for (const b of blocks) {
    const br = terminator(b);
    if (br?.opcode !== 'br' || br.operands.length !== 3) continue;
    const c = evaluateInteger(br.operands[0]!, none);
    if (c === undefined) continue;
    const [taken, dropped] = (c !== 0n ? [br.operands[1], br.operands[2]] : [br.operands[2], br.operands[1]]) as [BasicBlock, BasicBlock];
    eraseInstruction(br);
    if (dropped !== taken) removePhiIncoming(dropped, b);
    new IrBuilder(b).br(taken);
  }
  const inCopy = new Set(blocks);
  const reached = new Set<BasicBlock>([entry]);
  const work = [entry];
  while (work.length > 0) {
    for (const s of successors(work.pop()!)) {
      if (!inCopy.has(s) || reached.has(s)) continue;
      reached.add(s);
      work.push(s);
    }
  }
  const dead = blocks.filter((b) => !reached.has(b));
  const deadSet = new Set(dead);
  for (const d of dead) for (const s of new Set(successors(d))) if (!deadSet.has(s)) removePhiIncoming(s, d);
  // Dead blocks may use each other's values and branch to each other: unlink them all first.
  for (const d of dead) for (const i of d.instructions) dropAllOperands(i);
  for (const d of dead) eraseBlock(d);
}

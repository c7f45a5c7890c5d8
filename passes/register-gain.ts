// Whether opt kept more values in registers in a fast path than in its original code, for the
// profitability rule's last case (passes/profitability.ts): a fast path opt did not vectorize,
// whose check rules out aliasing. Ruling out aliasing pays only where opt used it: a location
// promoted to a register for a loop (LICM), a load replaced by the value stored or loaded one
// iteration before (loop load elimination, GVN). Both leave fewer loads and stores in the fast
// path's innermost loops for the same arithmetic. Where opt used nothing (a forward
// substitution `x[i] -= L[i][j] * x[j]`: x[i] and x[j] are one array, so x[i] stays in memory in
// both copies) the fast path is the original loops again, behind a check.
//
// The measure, per path: loads and stores in its innermost loops over the floating-point
// operations there. Both paths compute the same operations in the same order (nothing is
// reassociated), so the floating-point count is the work, whatever opt unrolled; a fast path
// gains when its ratio is lower. Loops without floating-point operations give no measure.
import { calledFunction, type Instruction, type IrFunction, type Module } from '../ir';
import { AnalysisManager } from '../analysis/analysis-manager';
import { loopAnalysis, type Loop } from '../analysis/loops';
import { FAST_PATH_LOOP_MARKER } from '../codegen/metadata';
import { loopIdEntries, metadataString } from './vectorized';

/** Memory operations and floating-point operations counted in one path's innermost loops. */
export interface PathMemoryOps {
  readonly memory: number;
  readonly floating: number;
  /** The innermost loops counted that hold vector floating-point operations. */
  readonly vectorLoops: number;
  /** The innermost loops counted. */
  readonly loops: number;
}

const FP_OPCODES = new Set(['fadd', 'fsub', 'fmul', 'fdiv', 'frem', 'fneg']);
const FP_INTRINSICS = /^llvm\.(fmuladd|fma|sqrt|fabs|minnum|maxnum|minimum|maximum)\./;

/** The floating-point operations one instruction performs (a vector's lanes each count). */
function floatingOps(inst: Instruction): number {
  const lanes = inst.type.kind === 'vector' && !inst.type.scalable ? inst.type.length : 1;
  if (FP_OPCODES.has(inst.opcode)) return lanes;
  if (inst.opcode === 'call' && FP_INTRINSICS.test(calledFunction(inst)?.name ?? '')) return lanes;
  return 0;
}

/** The memory operations one instruction performs (a vector load or store: one per lane). */
function memoryOps(inst: Instruction): number {
  if (inst.opcode === 'load') return inst.type.kind === 'vector' && !inst.type.scalable ? inst.type.length : 1;
  if (inst.opcode === 'store') {
    const t = inst.operands[0]!.type;
    return t.kind === 'vector' && !t.scalable ? t.length : 1;
  }
  return 0;
}

function count(loops: readonly Loop[]): PathMemoryOps {
  let memory = 0;
  let floating = 0;
  let vectorLoops = 0;
  for (const loop of loops) {
    let vector = false;
    for (const block of loop.blocks) {
      for (const inst of block.instructions) {
        memory += memoryOps(inst);
        const ops = floatingOps(inst);
        floating += ops;
        if (ops > 0 && inst.type.kind === 'vector') vector = true;
      }
    }
    if (vector) vectorLoops++;
  }
  return { memory, floating, vectorLoops, loops: loops.length };
}

/**
 * Per path of `fn`, the counts of its innermost loops: the fast path's loops are those whose
 * loop ID carries `tsopt.loop` naming `fastPath` (codegen/metadata.ts: fastPathName), the
 * original code's those carrying the slow marker `slowTag` naming `scop` (`tsopt.scopN`).
 */
export function pathMemoryOps(m: Module, fn: IrFunction, fastPath: string, slowTag: string, scop: string): { fast: PathMemoryOps; slow: PathMemoryOps } {
  const am = new AnalysisManager();
  const innermost = am.get(loopAnalysis, fn).all.filter((l) => l.children.length === 0);
  const fast: Loop[] = [];
  const slow: Loop[] = [];
  for (const loop of innermost) {
    const named = (tag: string, name: string): boolean => loopIdEntries(m, loop).some((e) => e.tag === tag && metadataString(e.fields.get('1')) === name);
    if (named(FAST_PATH_LOOP_MARKER, fastPath)) fast.push(loop);
    else if (named(slowTag, scop)) slow.push(loop);
  }
  am.invalidate(fn, 'none');
  return { fast: count(fast), slow: count(slow) };
}

/**
 * Whether the fast path's innermost loops do fewer loads and stores per floating-point
 * operation than the original code's; undefined when either path has no such loop or no
 * floating-point operation in them (no measure: the caller's rule stands). `why` says it in words.
 */
export function registerGain(counts: { fast: PathMemoryOps; slow: PathMemoryOps }): { gains: boolean; why: string } | undefined {
  const { fast, slow } = counts;
  if (fast.loops === 0 || slow.loops === 0 || fast.floating === 0 || slow.floating === 0) return undefined;
  const ratio = (p: PathMemoryOps): string => `${p.memory} loads and stores for ${p.floating} floating-point operations`;
  // fast.memory / fast.floating < slow.memory / slow.floating, in integers
  const gains = fast.memory * slow.floating < slow.memory * fast.floating;
  return { gains, why: `innermost loops: fast path ${ratio(fast)}, original code ${ratio(slow)}` };
}

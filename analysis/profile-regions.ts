// The regions profile-driven parameter specialization looks at (issue #19, SPolly ahead of time):
// every SCoP, and every rejected region whose only causes are ones that constant parameters can
// remove (a non-affine subscript or loop bound). Each gets a stable key (its ordinal among the
// function's profiled regions) and its parameters: the integer values defined before the region
// and used in it, whose run-time values `--profile-generate` records and `--profile-use` turns
// into constants. A fingerprint of the function (its text without metadata attachments) tells
// a profile taken from another version of the function apart.
import { createHash } from 'node:crypto';
import { predecessors, printFunction, printValue, successors, terminator, type BasicBlock, type IrFunction, type Value } from '../ir';
import type { FunctionAnalysisManager } from './analysis-manager';
import { dominatorTreeAnalysis } from './dominators';
import type { RejectionCause } from './scop-detection-types';
import { scopDetectionFor } from './scop-detection';

/** Causes a region may be rejected for and still be profiled: constants may make it affine. */
export const PARAMETER_CAUSES: ReadonlySet<RejectionCause> = new Set(['non-affine-access', 'non-affine-loop-bound']);

/** At most this many parameters are recorded per region (the first ones used). */
export const MAX_PROFILED_PARAMETERS = 6;

export interface ProfiledRegion {
  /** Ordinal among the function's profiled regions, in block order: the region's key within the function. */
  readonly index: number;
  readonly kind: 'scop' | 'rejected';
  /** The model's or the rejection's location (for the report). */
  readonly location: string;
  readonly entry: BasicBlock;
  /** First block after the region; undefined when it runs to the function's return. */
  readonly exit: BasicBlock | undefined;
  readonly blocks: readonly BasicBlock[];
  /** The one predecessor of `entry` outside the region, ending in `br` (the instrumentation and the dispatch go on its edge). */
  readonly entering: BasicBlock;
  /** Integer values defined before the region (dominating its entry) and used in it, in order of first use. */
  readonly parameters: readonly Value[];
  /** How each parameter prints (`%n`, `%5`): recorded with the profile, checked when it is used. */
  readonly parameterNames: readonly string[];
}

/** The function's text without metadata attachments (debug locations and TBAA numbering follow other functions). */
export function functionFingerprint(fn: IrFunction): string {
  const text = printFunction(fn).replace(/, ![A-Za-z0-9_.]+ !\d+/g, '').replace(/ !\d+/g, '');
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** Blocks reachable from `entry` without passing `exit`, in function order. */
function regionBlocks(fn: IrFunction, entry: BasicBlock, exit: BasicBlock | undefined): BasicBlock[] {
  const seen = new Set<BasicBlock>([entry]);
  const work = [entry];
  while (work.length > 0) {
    for (const s of successors(work.pop()!)) {
      if (s === exit || seen.has(s)) continue;
      seen.add(s);
      work.push(s);
    }
  }
  return fn.blocks.filter((b) => seen.has(b));
}

/** The region's parameters: integer values defined outside it, dominating its entry, used inside. */
function regionParameters(fn: IrFunction, am: FunctionAnalysisManager, entry: BasicBlock, inside: ReadonlySet<BasicBlock>): Value[] {
  const dom = am.get(dominatorTreeAnalysis, fn);
  const out: Value[] = [];
  const seen = new Set<Value>();
  for (const b of fn.blocks) {
    if (!inside.has(b)) continue;
    for (const inst of b.instructions) {
      for (const op of inst.operands) {
        if (seen.has(op) || op.type.kind !== 'int' || op.type.bits > 64 || op.type.bits < 8) continue;
        const ok = op.kind === 'argument' || (op.kind === 'instruction' && op.parent !== undefined && !inside.has(op.parent) && op.parent !== entry && dom.dominates(op.parent, entry));
        if (!ok) continue;
        seen.add(op);
        out.push(op);
      }
    }
  }
  return out.slice(0, MAX_PROFILED_PARAMETERS);
}

/**
 * The function's profiled regions, in block order. Regions whose entry is not reached by one
 * branch from outside, or that overlap an earlier one, are left out (nothing to put on their
 * entering edge).
 */
export function profiledRegions(fn: IrFunction, am: FunctionAnalysisManager, options: ReadonlyMap<string, string>): ProfiledRegion[] {
  const detection = am.get(scopDetectionFor(options), fn);
  const candidates: { kind: 'scop' | 'rejected'; location: string; entry: BasicBlock; exit: BasicBlock | undefined }[] = [];
  for (const s of detection.scops) candidates.push({ kind: 'scop', location: s.location, entry: s.entry, exit: s.exit });
  const rejected = new Map<BasicBlock, { exit: BasicBlock | undefined; location: string; onlyParameters: boolean }>();
  for (const r of detection.rejections) {
    const prev = rejected.get(r.entry);
    const ok = PARAMETER_CAUSES.has(r.cause) && (prev === undefined || (prev.onlyParameters && prev.exit === r.exit));
    rejected.set(r.entry, { exit: r.exit, location: prev?.location ?? r.location, onlyParameters: ok });
  }
  for (const [entry, r] of rejected) if (r.onlyParameters) candidates.push({ kind: 'rejected', location: r.location, entry, exit: r.exit });
  candidates.sort((a, b) => fn.blocks.indexOf(a.entry) - fn.blocks.indexOf(b.entry));
  const taken = new Set<BasicBlock>();
  const out: ProfiledRegion[] = [];
  for (const c of candidates) {
    const blocks = regionBlocks(fn, c.entry, c.exit);
    if (blocks.some((b) => taken.has(b))) continue;
    const inside = new Set(blocks);
    const outside = [...new Set(predecessors(c.entry).filter((p) => !inside.has(p)))];
    if (outside.length !== 1 || terminator(outside[0]!)?.opcode !== 'br') continue;
    const parameters = regionParameters(fn, am, c.entry, inside);
    if (parameters.length === 0) continue;
    for (const b of blocks) taken.add(b);
    out.push({
      index: out.length,
      kind: c.kind,
      location: c.location,
      entry: c.entry,
      exit: c.exit,
      blocks,
      entering: outside[0]!,
      parameters,
      parameterNames: parameters.map((p) => printValue(p, false)),
    });
  }
  return out;
}

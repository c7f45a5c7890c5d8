// `tsopt --outcome=FILE`: whether tsopt's output holds anything of its passes, for tscc.
//
// A module none of whose changes stayed (no pass rewrote it, and every fast path the versioning
// pass made was dropped after opt by the profitability rule) is the original code through
// tsopt's post pipeline: -O3's tail after clang ran -O3 with its vectorizers off and unrolling
// deferred. That is not clang -O3's own compile: the passes before the vectorizers run twice and
// the post pipeline adds its own (cli/post-pipeline.ts), so registers, spills and block order come
// out otherwise (PolyBench's VLA jacobi-1d: the same instructions but 64-byte loop alignment,
// durbin: another stack frame and register choice, our jacobi-1d's main: another unrolled
// initialization loop). tscc compiles such a source with clang-14 itself, so a file tsopt did not
// improve is exactly clang -O3's object.
import * as fs from 'node:fs';
import type { PipelineResult } from '../passes/pipeline';

export type Outcome = 'changed' | 'unchanged';

/** The pass whose changes the profitability rule can take back (passes/profitability-stage.ts). */
const VERSIONING_PASS = 'versioning';

/**
 * What the run left in its output. `inlinedAccessors`: checked accessors inlined before the
 * passes; `decided`: whether the profitability stage decided on the versioned SCoPs (it runs
 * unless --keep-unprofitable, --rtc-stats or --no-post).
 */
export function runOutcome(pipeline: Pick<PipelineResult, 'timings' | 'scopResults'>, inlinedAccessors: number, decided: boolean): Outcome {
  if (inlinedAccessors > 0) return 'changed';
  if (pipeline.timings.some((t) => t.preserved !== 'all' && t.pass !== VERSIONING_PASS)) return 'changed';
  const versioned = pipeline.scopResults.filter((r) => r.fields.versioned === true).length;
  if (versioned === 0) {
    // Nothing versioned: unchanged only if the versioning pass says it changed nothing else either.
    return pipeline.timings.every((t) => t.preserved === 'all') ? 'unchanged' : 'changed';
  }
  if (!decided) return 'changed';
  const decisions = pipeline.scopResults.filter((r) => r.pass === 'profitability' && typeof r.fields.fastPathKept === 'boolean');
  if (decisions.length < versioned || decisions.some((r) => r.fields.fastPathKept === true)) return 'changed';
  return 'unchanged';
}

/**
 * `--skip-unchanged-output` left no output: a regular file of the output's name, from an earlier
 * run, is removed so that nothing takes it for this run's (a device such as /dev/null stays).
 */
export function removeStaleOutput(file: string): void {
  if (fs.statSync(file, { throwIfNoEntry: false })?.isFile()) fs.rmSync(file, { force: true });
}

/** The outcome tsopt wrote to `file`, or undefined when it wrote none (an older tsopt, a failure). */
export function readOutcome(file: string): Outcome | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
  return text === 'changed' || text === 'unchanged' ? text : undefined;
}

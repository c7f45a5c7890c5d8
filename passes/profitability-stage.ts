// `profitability`, the stage after opt-14 (passes/profitability.ts decides): before the post
// pipeline it guards the fast paths of the versioned SCoPs, and on opt's output it keeps or drops
// each one and publishes why (the report's `fastPathKept`, `profitability`).
import type { Module } from '../ir';
import type { AfterOptContext, AfterOptStage } from './pass';
import { booleanOption } from './pass';
import { applyDecisions, CLEANUP_PIPELINE, decideFastPaths, guardFastPaths } from './profitability';
import { rtcStatsOption } from './versioning';

/** The SCoP numbers (`tsopt.scopN`) whose fast paths are guarded. */
type Guarded = readonly number[];

export const profitabilityStage: AfterOptStage<Guarded> = {
  name: 'profitability',
  description: 'after opt-14, keep a fast path only where opt vectorized it, its loops run on threads, or its check rules out aliasing; elsewhere the original code runs, without the check (off with --keep-unprofitable and with --rtc-stats)',
  options: [rtcStatsOption],
  before(module: Module, ctx: AfterOptContext): Guarded | undefined {
    // --rtc-stats counts what the checks decided: every fast path stays, so the counts say what ran.
    if (booleanOption(ctx, rtcStatsOption, false)) return undefined;
    if (!ctx.scopResults.some((r) => r.fields.versioned === true)) return undefined;
    const guarded = guardFastPaths(module);
    return guarded.length > 0 ? guarded : undefined;
  },
  after(module, guarded, ctx, fastPaths): boolean {
    const decisions = decideFastPaths(module, guarded, ctx.scopResults, fastPaths);
    for (const d of decisions) {
      ctx.scopResults.push({ pass: 'profitability', function: d.function, location: d.location, fields: { fastPathKept: d.kept, profitability: d.reason } });
    }
    return applyDecisions(module, decisions);
  },
  cleanupPipeline: CLEANUP_PIPELINE,
};

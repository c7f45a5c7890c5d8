// The schedule optimizer's options, its run under the SCoP's budget (step `schedule`), and
// `print<schedule>`: per SCoP, the schedule tree isl's scheduler gives after the optimizer
// permuted and tiled its bands, the tile sizes and why, and whether versioning takes it
// (transform/schedule-optimizer.ts). The printer writes to stderr and changes nothing.
import * as os from 'node:os';
import { IslQuotaError } from 'isl-wasm';
import { TsoptError } from '../ir/errors';
import type { InterchangePlan } from '../transform/interchange';
import type { ScopModel, ScopStatementModel } from '../polyhedral/model';
import { optimizeOrKeep, optimizeSchedule, type ScheduleDecision, type ScheduleOptions } from '../transform/schedule-optimizer';
import { machineCaches, vectorBytesOf } from '../transform/tile-sizes';
import { timeTile, type TimeTileOptions, type TimeTileResult } from '../transform/time-tiling';
import { schedulerNotWorthIt } from '../transform/schedule-filter';
import { rowJam, rowJamShape } from '../transform/row-jam';
import { rightLooking, rightLookingMaxOperations, rightLookingShape, type RightLookingResult } from '../transform/right-looking';
import type { ModulePass, PassContext, PassOption } from './pass';
import { booleanOption, nonNegativeIntegerOption } from './pass';
import { parallelOption } from './parallel-option';
import { maxOperationsOption, printerPass, scopMaxOperationsOption } from './scop-passes';
import { interchangePlansFor, sourceFor } from './scop-sources';

export const scheduleOption: PassOption = {
  name: 'schedule',
  description: 'compute each SCoP\'s fast-path schedule with isl\'s scheduler on its dependences, kept only where the cost model says it is better (default true; --schedule=false keeps the original or interchanged order)',
};
export const tileOption: PassOption = {
  name: 'tile',
  description: 'tile every permutable band of two members or more of the new schedule (default true)',
};
export const tileSizesOption: PassOption = {
  name: 'tile-sizes',
  description: 'tile sizes, outermost member first, comma-separated; the last one for the members past the list (default: from the caches, the element types, the arrays of the band and the SIMD width)',
};
export const registerTileOption: PassOption = {
  name: 'register-tile',
  description: 'in each tiled band, unroll by 4 and jam into the innermost loop the (at most two) members along which an access stays on one element, so registers keep it (default false: isl guards each unrolled copy inside the innermost loop, which opt then does not vectorize: gemm 4x slower)',
};
export const matmulOption: PassOption = {
  name: 'matmul',
  description: 'give matrix-multiplication statements (C[i][j] += A[i][k] B[k][j] up to transposition: gemm, 2mm, 3mm, syrk, syr2k) BLIS\'s loops, blocks for the caches and a register-tiled micro-kernel opt vectorizes, instead of the generic tiling (default true; transform/matmul.ts)',
};
export const matmulPackOption: PassOption = {
  name: 'matmul-pack',
  description: 'on the matmul path, copy each Nc x Kc block of an operand read across rows along the vectorized j (syrk\'s and syr2k\'s A[j][k]) into a buffer read stride 1, allocated per run of the fast path and freed (default true; transform/matmul.ts, codegen/packing.ts)',
};
export const matmulPackAOption: PassOption = {
  name: 'matmul-pack-a',
  description: 'with --matmul-pack, copy each Mc x Kc block of every A-like operand read across rows along the micro-kernel\'s unrolled i into a [k][i] buffer, so the micro-tile\'s rows of A share a line per k (default false: only those whose product with a value the SCoP does not compute, gemm\'s alpha * A[i][k], the copy then computes once; transform/matmul.ts, transform/packed-product.ts, codegen/packing.ts)',
};
export const matmulParametricOption: PassOption = {
  name: 'matmul-parametric',
  description: 'take the matmul path also where the sizes are parameters (VLA code), its full micro-tiles a filter of their own whose rows of C get alias scopes of their own, where the model shows the rows apart and no operand needs packing (default true; transform/matmul.ts, transform/matmul-rows.ts)',
};
export const matmulParametricPackOption: PassOption = {
  name: 'matmul-parametric-pack',
  description: 'with --matmul-parametric, also where an operand needs packing (syrk, syr2k, a transposed B), its buffer sized at run time (default true; false: those keep the generic tiling; transform/matmul-rows.ts, codegen/packing.ts)',
};
export const l1CacheOption: PassOption = {
  name: 'l1-cache-size',
  description: 'L1 data cache bytes the tile sizes assume (default: /sys/devices/system/cpu/cpu0/cache)',
};
export const l2CacheOption: PassOption = {
  name: 'l2-cache-size',
  description: 'L2 cache bytes the tile sizes assume (default: /sys/devices/system/cpu/cpu0/cache)',
};
export const scheduleMaxOperationsOption: PassOption = {
  name: 'schedule-max-operations',
  description: 'isl operations allowed per SCoP for the scheduler, a step (`schedule`) of --scop-max-operations; never more than half of what the SCoP\'s budget has left; past it the SCoP keeps its order and the report says so (default 1000000, 0 = no limit of its own)',
};

export const timeTileOption: PassOption = {
  name: 'time-tile',
  description: 'time-tile iterative stencils (the outermost loop carries the reuse): skewed parallelogram tiles across time steps, built before isl\'s scheduler runs (default true; --time-tile=false leaves them to isl\'s scheduler)',
};
export const timeTileSizesOption: PassOption = {
  name: 'time-tile-sizes',
  description: 'time tile height, then the widths along the skewed space loops, outermost first, comma-separated; the last one for the loops past the list (default: from L2, the arrays, the skew and the SIMD width)',
};
export const timeTileWavefrontOption: PassOption = {
  name: 'time-tile-wavefront',
  description: 'run a stencil\'s time tiles (constant sizes) in wavefronts, the tiles of one wavefront on OpenMP\'s threads with --parallel (transform/wavefront.ts; default: as --parallel, so tscc -fopenmp; without threads one thread ran jacobi-2d in wavefront order with 1.37x the CPU time)',
};
export const timeTileWavefrontDepthOption: PassOption = {
  name: 'time-tile-wavefront-depth',
  description: 'how many tile coordinates a wavefront of time tiles sums: 2 runs wavefronts T0 + T1, 3 runs T0 + T1 + T2 (where the band has that many members), which puts more tiles in each wavefront for the threads to share (transform/wavefront.ts; default 2)',
};

export const timeTileWavefrontThreadsOption: PassOption = {
  name: 'time-tile-wavefront-threads',
  description: 'the threads the wavefronts of time tiles are shaped for: of the heights from the cache rule\'s to twice it whose tile data fits, the one whose wavefronts share out best over that many threads, counted per wavefront (transform/wavefront-shape.ts; default: this machine\'s CPUs; 1 keeps the cache rule\'s height)',
};

export const timeTileOneThreadOrderOption: PassOption = {
  name: 'time-tile-one-thread-order',
  description: 'with time tiles in wavefronts (--parallel), also generate the tiles in time band order at the single-thread height, which the program runs when OpenMP gives it one thread (omp_get_max_threads() == 1, or inside a parallel region): the wavefront order costs one thread reuse (default true; only with --parallel, which runs it)',
};

export const rowJamOption: PassOption = {
  name: 'row-jam',
  description: 'run the rows of a triangular solve jammed: in `for r: s = init; for k: s = s op a(r,k) b(k); x[r] = g(s)` whose rows read what earlier rows finished (trisolv, cholesky), rows r0..r0+U-1 summed together over the k below the block, each row\'s sum in its k order, then the triangle inside the block row by row (transform/row-jam.ts; default true)',
};
export const rowJamFactorOption: PassOption = {
  name: 'row-jam-factor',
  description: 'rows the row jam runs together, U (default 8: independent chains enough to cover the latency of two FMA units)',
};

export const rightLookingOption: PassOption = {
  name: 'right-looking',
  description: 'give an LU-style nest whose row loop carries everything (a reduction of three loops or more, lu, ludcmp) the right-looking order: its reduction loop k outermost, every other statement at one of its counters or 0, and inside each step of k the statements\' other loops tiled and, with --parallel, run on the threads; built from DeLICM\'s model with every sum mapped, checked with isl against every dependence (transform/right-looking.ts; default true)',
};

export const scheduleShortcutsOption: PassOption = {
  name: 'schedule-shortcuts',
  description: 'spend less isl work on the schedule for the same result: isl\'s scheduler only where its schedule could be taken (not where no statement is in two loops, nor where no access walks across rows innermost and none to a matrix stays on one element along a loop: transform/schedule-filter.ts; the report\'s schedule.schedulerSkipped says why), DeLICM for time tiling only where it could make a stencil, and the DeLICM probes\' schedules and time tiles reused by the optimizer (default true; --schedule-shortcuts=false runs every step as before, with the same output)',
};

export const scheduleOptions: readonly PassOption[] = [scheduleOption, tileOption, tileSizesOption, registerTileOption, matmulOption, matmulPackOption, matmulPackAOption, matmulParametricOption, matmulParametricPackOption, l1CacheOption, l2CacheOption, scheduleMaxOperationsOption, timeTileOption, timeTileSizesOption, timeTileWavefrontOption, timeTileWavefrontDepthOption, timeTileWavefrontThreadsOption, timeTileOneThreadOrderOption, scheduleShortcutsOption, rowJamOption, rowJamFactorOption, rightLookingOption];

/** What the optimizer runs with; undefined with --schedule=false. */
export interface ScheduleSettings extends ScheduleOptions {
  readonly maxOperations: number;
  /** --time-tile */
  readonly timeTile: boolean;
  /** --time-tile-sizes */
  readonly timeTileSizes: readonly number[] | undefined;
  /** --time-tile-wavefront */
  readonly timeTileWavefront: boolean;
  /** --time-tile-wavefront-depth */
  readonly timeTileWavefrontDepth: number;
  /** --time-tile-wavefront-threads */
  readonly timeTileWavefrontThreads: number;
  /** --time-tile-one-thread-order */
  readonly timeTileOneThreadOrder: boolean;
  /** --schedule-shortcuts */
  readonly shortcuts: boolean;
  /** --row-jam: the factor U, 0 when off. */
  readonly rowJam: number;
  /** --right-looking */
  readonly rightLooking: boolean;
}

export function scheduleSettingsFrom(ctx: PassContext, module: { readonly attributeGroups: ReadonlyMap<number, string> }): ScheduleSettings | undefined {
  if (!booleanOption(ctx, scheduleOption, true)) return undefined;
  const sizes = sizesOption(ctx, tileSizesOption);
  const machine = machineCaches();
  return {
    tile: booleanOption(ctx, tileOption, true),
    registerTile: booleanOption(ctx, registerTileOption, false),
    matmul: booleanOption(ctx, matmulOption, true),
    pack: booleanOption(ctx, matmulPackOption, true),
    packA: booleanOption(ctx, matmulPackAOption, false),
    matmulParametric: booleanOption(ctx, matmulParametricOption, true),
    matmulParametricPack: booleanOption(ctx, matmulParametricPackOption, true),
    threads: booleanOption(ctx, parallelOption, false),
    tileSizes: sizes,
    caches: { l1: nonNegativeIntegerOption(ctx, l1CacheOption, machine.l1) || machine.l1, l2: nonNegativeIntegerOption(ctx, l2CacheOption, machine.l2) || machine.l2 },
    vectorBytes: vectorBytesOf(module as never),
    maxOperations: nonNegativeIntegerOption(ctx, scheduleMaxOperationsOption, 1_000_000),
    timeTile: booleanOption(ctx, timeTileOption, true),
    timeTileSizes: sizesOption(ctx, timeTileSizesOption),
    timeTileWavefront: booleanOption(ctx, timeTileWavefrontOption, booleanOption(ctx, parallelOption, false)),
    timeTileWavefrontDepth: Math.max(2, nonNegativeIntegerOption(ctx, timeTileWavefrontDepthOption, 2)),
    timeTileWavefrontThreads: nonNegativeIntegerOption(ctx, timeTileWavefrontThreadsOption, os.availableParallelism()),
    // Only --parallel's codegen runs the one-thread tree (codegen/one-thread.ts): not built without it.
    timeTileOneThreadOrder: booleanOption(ctx, timeTileOneThreadOrderOption, true) && booleanOption(ctx, parallelOption, false),
    shortcuts: booleanOption(ctx, scheduleShortcutsOption, true),
    rowJam: booleanOption(ctx, rowJamOption, true) ? nonNegativeIntegerOption(ctx, rowJamFactorOption, 8) : 0,
    rightLooking: booleanOption(ctx, rightLookingOption, true),
  };
}

/** Positive integers separated by commas, or undefined when the option is not given. */
function sizesOption(ctx: PassContext, option: PassOption): number[] | undefined {
  const raw = ctx.options.get(option.name);
  if (raw === undefined) return undefined;
  const sizes = raw.split(',').map((x) => Number(x.trim()));
  if (sizes.length === 0 || sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new TsoptError(`--${option.name} wants positive integers separated by commas, not '${raw}'`);
  return sizes;
}

/** The dimension of `st` that `interchange` runs innermost (its last one when not interchanged). */
export function innermostDim(interchange: Pick<InterchangePlan, 'nests'> | undefined): (st: ScopStatementModel) => number {
  return (st) => {
    const nest = interchange?.nests.find((n) => n.statements.includes(st));
    return nest && st.loops.length > nest.outer.depth ? nest.outer.depth - 1 : st.loops.length - 1;
  };
}

/**
 * The optimizer's isl quota for `model`. Optional, like DeLICM: at most half of what the budget
 * has left, so the check and the AST still fit; and at most --schedule-max-operations.
 */
export function scheduleQuota(model: ScopModel, s: ScheduleSettings): number {
  const left = model.budget.remaining;
  const share = left === Infinity ? 0 : Math.max(1, Math.floor(left / 2));
  return s.maxOperations === 0 ? share : share === 0 ? s.maxOperations : Math.min(s.maxOperations, share);
}

/** Time tiling's options from the optimizer's settings (the seidel probe asks `timeTiled` with the same). */
function timeTileOptions(s: ScheduleSettings): TimeTileOptions {
  return { caches: s.caches, vectorBytes: s.vectorBytes, sizes: s.timeTileSizes, tileWavefront: s.timeTileWavefront, wavefrontDepth: s.timeTileWavefrontDepth, threads: s.timeTileWavefrontThreads, oneThreadOrder: s.timeTileOneThreadOrder };
}

/** The optimizer's decision for `model` under its budget (step `schedule`); isl giving up keeps the base order. */
export function scheduleDecision(model: ScopModel, interchange: InterchangePlan | undefined, s: ScheduleSettings): ScheduleDecision {
  if (model.budget.exhaustedBy) return { schedule: undefined, why: `the original order is kept: ${model.budget.reason()}`, tiled: [], fused: false, skewed: false, tree: '', matmul: [] };
  // A decision made before for this model and plan (DeLICM's tiling probe): its tree is now the caller's.
  const made = s.shortcuts ? takeDecision(model, interchange) : undefined;
  if (made) return made;
  const limit = scheduleQuota(model, s);
  const innermost = innermostDim(interchange);
  // Why the row jam refused a nest of its shape, for the report whatever the optimizer does next.
  let jamRefused: string | undefined;
  const d = optimizeOrKeep(model, () =>
    model.budget.run(model.ctx, 'schedule', limit, () => {
      // isl's scheduler only where its schedule could be taken (transform/schedule-filter.ts).
      const isl = (): ScheduleDecision => {
        // An LU-style nest's right-looking order, built from the model (transform/right-looking.ts):
        // isl's scheduler does not find it, and spends its quota trying.
        const right = s.rightLooking && rightLookingShape(model) === undefined ? rightLookingWithin(model, innermost, s) : undefined;
        if (right && 'decision' in right) return right.decision;
        if (right) return { ...plainIsl(), rightLookingRefused: right.refused };
        return plainIsl();
      };
      const plainIsl = (): ScheduleDecision => {
        const skipped = s.shortcuts ? schedulerNotWorthIt(model, innermost) : undefined;
        if (skipped === undefined) return optimizeSchedule(model, innermost, s);
        return { schedule: undefined, why: `the original order is kept: isl's scheduler not run: ${skipped}`, schedulerSkipped: skipped, tiled: [], fused: false, skewed: false, tree: '', matmul: [] };
      };
      // A triangular solve's rows jammed (transform/row-jam.ts), where its nest is one.
      const jam = s.rowJam > 0 && typeof rowJamShape(model) !== 'string' ? rowJam(model, { factor: s.rowJam }) : undefined;
      if (jam && 'decision' in jam) return jam.decision;
      jamRefused = jam?.refused;
      // Stencils first: isl's scheduler would spend its quota on them and refuse the skew it finds.
      if (!s.timeTile) return isl();
      const t = timeTiled(model, s);
      if ('decision' in t) return t.decision;
      return { ...isl(), timeTileRefused: t.refused };
    }),
  );
  return jamRefused !== undefined ? { ...d, rowJamRefused: jamRefused } : d;
}

/**
 * The right-looking order of `model` within its own quota (`rightLookingMaxOperations`, nested in
 * the schedule step), so that a nest it refuses late leaves isl's scheduler its quota; running
 * out is a refusal.
 */
function rightLookingWithin(model: ScopModel, innermost: (st: ScopStatementModel) => number, s: ScheduleSettings): RightLookingResult {
  try {
    return model.budget.run(model.ctx, 'schedule', rightLookingMaxOperations, () => rightLooking(model, innermost, s));
  } catch (e) {
    if (e instanceof IslQuotaError) return { refused: `isl ran out of the right-looking order's quota (${rightLookingMaxOperations} operations)` };
    throw e;
  }
}

/**
 * Time tiling's result for `model`, computed once for the seidel probe and the optimizer alike
 * (deterministic for one model and settings): a refusal is kept, a decision handed out once (its
 * tree is the taker's; one never taken is freed with the model's context). isl errors pass through.
 */
export function timeTiled(model: ScopModel, s: ScheduleSettings): TimeTileResult {
  const known = s.shortcuts ? timeTiles.get(model) : undefined;
  if (known !== undefined) {
    if ('decision' in known) timeTiles.delete(model);
    return known;
  }
  return timeTile(model, timeTileOptions(s));
}

/** Keeps the probe's time-tiling result of `model` for the optimizer (`timeTiled`). */
export function keepTimeTiled(model: ScopModel, t: TimeTileResult): void {
  timeTiles.set(model, t);
}
const timeTiles = new WeakMap<ScopModel, TimeTileResult>();

/** Keeps a decision made for `model` with `plan` (DeLICM's tiling probe) for the optimizer's next ask: its tree is then the asker's. */
export function keepDecision(model: ScopModel, plan: InterchangePlan | undefined, d: ScheduleDecision): void {
  decisions.set(model, { plan, decision: d });
}
function takeDecision(model: ScopModel, plan: InterchangePlan | undefined): ScheduleDecision | undefined {
  const kept = decisions.get(model);
  if (kept === undefined || kept.plan !== plan) return undefined;
  decisions.delete(model);
  return kept.decision;
}
const decisions = new WeakMap<ScopModel, { plan: InterchangePlan | undefined; decision: ScheduleDecision }>();

/** The report's `schedule` field. */
export function scheduleReport(d: ScheduleDecision, used: boolean, notUsed?: string): Record<string, unknown> {
  return {
    taken: used,
    why: used || notUsed === undefined ? d.why : `the original order is kept: ${notUsed}`,
    tiledBands: used ? d.tiled.length : 0,
    tileSizes: used ? d.tiled.map((t) => t.sizes) : [],
    ...(d.schedulerSkipped !== undefined ? { schedulerSkipped: d.schedulerSkipped } : {}),
    fused: used && d.fused,
    skewed: used && d.skewed,
    timeTiled: used && d.timeTiled !== undefined ? { skew: d.timeTiled.skew, sizes: d.timeTiled.sizes, parallelInnermost: d.timeTiled.parallelInnermost, wavefront: d.timeTiled.wavefront, ...(d.timeTiled.tileWavefront ? { tileWavefront: true } : {}), ...(d.timeTiled.tileWavefrontRefused ? { tileWavefrontRefused: d.timeTiled.tileWavefrontRefused } : {}), ...(d.timeTiled.wavefrontHeight ? { wavefrontHeight: d.timeTiled.wavefrontHeight } : {}), ...(d.timeTiled.oneThreadSizes ? { oneThreadSizes: d.timeTiled.oneThreadSizes } : {}), ...(d.timeTiled.oneThreadRefused ? { oneThreadRefused: d.timeTiled.oneThreadRefused } : {}) } : false,
    // false, or per statement on BLIS's path: its micro-tile and blocks, and the arrays packed (none with --matmul-pack=false)
    ...(used && d.rowJammed ? { rowJammed: { statement: d.rowJammed.statement, factor: d.rowJammed.factor, rowDepth: d.rowJammed.rowDepth, why: d.rowJammed.why } } : {}),
    ...(d.rowJamRefused !== undefined ? { rowJamRefused: d.rowJamRefused } : {}),
    ...(used && d.rightLooking ? { rightLooking: d.rightLooking } : {}),
    ...(d.rightLookingRefused !== undefined ? { rightLookingRefused: d.rightLookingRefused } : {}),
    matmul: used && d.matmul.length > 0 ? d.matmul.map((m) => ({ statement: m.statement, microTile: [m.sizes.mr, m.sizes.nr], blocks: { mc: m.sizes.mc, kc: m.sizes.kc, nc: m.sizes.nc }, packed: m.packed })) : false,
  };
}

function printScop(model: ScopModel, ctx: PassContext): string {
  const s = scheduleSettingsFrom(ctx, model.function.parent);
  if (!s) return `  SCoP at ${model.location}\n    (--schedule=false)`;
  // The model versioning generates from (DeLICM's for an interchange or a tiling only its scalars
  // block), and its interchange plan as versioning reads it (cached per model; undefined when isl gave up).
  const source = sourceFor(ctx, model, { interchange: true, maxOperations: 0, schedule: s });
  const m = source.model;
  const plan = interchangePlansFor(ctx, m, 0).planFor(m);
  const d = m.ctx.scope(() => {
    const decision = scheduleDecision(m, plan, s);
    decision.schedule?.dispose();
    decision.oneThreadSchedule?.dispose();
    return decision;
  });
  const lines = [`  SCoP at ${model.location}`];
  if (source.from === 'delicm') lines.push("    from DeLICM's model");
  lines.push(`    ${d.why}`);
  if (d.timeTiled) lines.push(`    time tiles: ${d.timeTiled.why}; innermost loops parallel: ${d.timeTiled.parallelInnermost.join(', ') || 'none'}`);
  if (d.timeTiled?.tileWavefrontRefused) lines.push(`    no wavefronts of tiles: ${d.timeTiled.tileWavefrontRefused}`);
  if (d.timeTiled?.oneThreadSizes) lines.push(`    on one thread: the tiles in time band order, ${d.timeTiled.oneThreadSizes.join(' x ')}`);
  if (d.timeTiled?.oneThreadRefused) lines.push(`    no one-thread order: ${d.timeTiled.oneThreadRefused}`);
  if (d.timeTileRefused) lines.push(`    not time-tiled: ${d.timeTileRefused}`);
  if (d.rowJammed) lines.push(`    rows jammed: ${d.rowJammed.statement}, ${d.rowJammed.factor} rows of loop depth ${d.rowJammed.rowDepth}`);
  if (d.rowJamRefused) lines.push(`    rows not jammed: ${d.rowJamRefused}`);
  if (d.rightLooking) lines.push(`    right-looking: ${d.rightLooking}`);
  if (d.rightLookingRefused) lines.push(`    not right-looking: ${d.rightLookingRefused}`);
  for (const t of d.tiled) {
    lines.push(`    tiled ${t.statements.join(', ')}: sizes ${t.sizes.join(' x ')}: ${t.why}`);
    if (t.jammed) lines.push(`    unrolled and jammed into the innermost loop: ${t.jammed.join(' x ')}`);
  }
  for (const m of d.matmul) {
    lines.push(`    matmul ${m.statement}: loops i${m.roles.i}, j${m.roles.j}, k${m.roles.k} as BLIS's i, j, k; packed: ${m.packed.length > 0 ? m.packed.join(', ') : 'nothing'}`);
  }
  if (d.tree) lines.push(...d.tree.split('\n').map((l) => `    ${l}`));
  return lines.join('\n');
}

export const printSchedulePass: ModulePass = printerPass(
  'print<schedule>',
  'print each SCoP\'s schedule tree from isl\'s scheduler with its bands permuted and tiled, the tile sizes and why, and whether versioning takes it or keeps the original order, with why',
  printScop,
  [maxOperationsOption, scopMaxOperationsOption, ...scheduleOptions],
);

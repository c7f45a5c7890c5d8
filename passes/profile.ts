// Profile-driven parameter specialization (issue #19): the passes `profile-generate` and
// `profile-use`, which the CLI puts before the rest of the pipeline when `--profile-generate`
// or `--profile-use` is given (cli/run.ts). Both see the module as clang made it, so the
// regions (analysis/profile-regions.ts) and their keys are the same in both builds.
import { functionFingerprint, profiledRegions, type ProfiledRegion } from '../analysis/profile-regions';
import { DEFAULT_PROFILE_FILE, ProfileInstrumentation } from '../codegen/profile-instrument';
import { dropCopiesWithoutFastPath, nameUnnamed, specializationProblem, specializeRegion, type Specialization } from '../codegen/profile-specialize';
import { DispatchStats } from '../codegen/profile-stats';
import type { IrFunction, Module } from '../ir';
import { TsoptError } from '../ir/errors';
import { booleanOption, nonNegativeIntegerOption, type ModulePass, type PassContext, type PassOption, type Preserved } from './pass';
import { hotValues, readProfile, regionProfileKey } from './profile-data';
import { rtcStatsOption } from './versioning';

export const profileGenerateOption: PassOption = {
  name: 'profile-generate',
  description: `instrument every SCoP and every region rejected only for non-affine subscripts or bounds to record its parameters' values; the program appends them at exit to FILE (--profile-generate=FILE; default ${DEFAULT_PROFILE_FILE}; $TSOPT_PROFILE_FILE overrides it at run time)`,
};
export const profileUseOption: PassOption = {
  name: 'profile-use',
  description: 'specialize regions for the parameter values the profile FILE says are hot: a copy per hot tuple with the values as constants, behind a dispatch; a missing, stale or corrupt profile is a warning and no specialization',
};
export const profileMaxVersionsOption: PassOption = {
  name: 'profile-max-versions',
  description: 'with --profile-use: at most this many specialized versions per region (default 2)',
};

/** The profile file `--profile-generate` names (the bare flag: the default). */
export function profileGenerateFile(options: ReadonlyMap<string, string>): string | undefined {
  const v = options.get(profileGenerateOption.name);
  if (v === undefined || v === 'false') return undefined;
  return v === '' || v === 'true' ? DEFAULT_PROFILE_FILE : v;
}

function profileUseFile(options: ReadonlyMap<string, string>): string | undefined {
  const v = options.get(profileUseOption.name);
  if (v === undefined) return undefined;
  if (v === '' || v === 'true') throw new TsoptError('--profile-use needs a file name (--profile-use=FILE)');
  return v;
}

function definedFunctions(module: Module): IrFunction[] {
  return module.functions.filter((f) => !f.isDeclaration && !f.name.startsWith('tsopt.'));
}

/** A dispatch `profile-use` made, for `profile-use-fallbacks` to look at after versioning. */
interface Specialized {
  readonly function: string;
  readonly location: string;
  readonly specialization: Specialization;
}

const specialized = new WeakMap<Module, Specialized[]>();

export const profileGeneratePass: ModulePass = {
  name: 'profile-generate',
  description: 'record the parameter values each SCoP (and each region rejected only for non-affine subscripts or bounds) is entered with, into a profile for --profile-use',
  options: [profileGenerateOption],
  run(module: Module, ctx: PassContext): Preserved {
    const file = profileGenerateFile(ctx.options) ?? DEFAULT_PROFILE_FILE;
    const plans: { fn: IrFunction; fingerprint: string; regions: ProfiledRegion[] }[] = [];
    for (const fn of definedFunctions(module)) {
      const regions = profiledRegions(fn, ctx.am, ctx.options);
      if (regions.length > 0) plans.push({ fn, fingerprint: functionFingerprint(fn), regions });
    }
    if (plans.length === 0) return 'all';
    const inst = new ProfileInstrumentation(module, file);
    for (const { fn, fingerprint, regions } of plans) {
      for (const r of regions) {
        inst.instrument({ function: fn.name, fingerprint, region: r.index, kind: r.kind, location: r.location, entering: r.entering, entry: r.entry, parameters: r.parameters, parameterNames: r.parameterNames });
        ctx.stats.set('instrumented-regions', (ctx.stats.get('instrumented-regions') ?? 0) + 1);
        ctx.scopResults.push({ pass: 'profile-generate', function: fn.name, location: r.location, fields: { profiled: { region: r.index, parameters: r.parameterNames } } });
      }
    }
    inst.finish();
    return 'none';
  },
};

export const profileUsePass: ModulePass = {
  name: 'profile-use',
  description: 'copies of regions specialized for their hot parameter values (from --profile-use=FILE), behind a dispatch that falls back to the general code',
  options: [profileUseOption, profileMaxVersionsOption, rtcStatsOption],
  run(module: Module, ctx: PassContext): Preserved {
    const file = profileUseFile(ctx.options);
    if (file === undefined) return 'all';
    const maxVersions = nonNegativeIntegerOption(ctx, profileMaxVersionsOption, 2);
    const profile = readProfile(file);
    if (!profile.ok) {
      ctx.log.warn(`profile ${file} not used (${profile.why}): no specialization`);
      return 'all';
    }
    let matched = 0;
    const stale: string[] = [];
    const work: { fn: IrFunction; region: ProfiledRegion; hot: ReturnType<typeof hotValues> }[] = [];
    for (const fn of definedFunctions(module)) {
      const regions = profiledRegions(fn, ctx.am, ctx.options);
      const fingerprint = functionFingerprint(fn);
      let fnStale = false;
      for (const r of regions) {
        const p = profile.regions.get(regionProfileKey(fn.name, fingerprint, r.index));
        if (!p) continue;
        if (p.parameters.join() !== r.parameterNames.join()) {
          fnStale = true;
          continue;
        }
        matched++;
        const hot = hotValues(p, maxVersions);
        const problem = hot.length > 0 ? specializationProblem({ fn, ...r }) : undefined;
        if (hot.length > 0 && problem === undefined) work.push({ fn, region: r, hot });
        const fields = hot.length === 0
          ? { specializations: [], notSpecialized: `no value tuple is hot enough (${p.entries} entries, ${p.counts.size} tuples recorded, ${p.other} others)` }
          : problem !== undefined
            ? { specializations: [], notSpecialized: problem }
            : { specializations: hot.map((h) => ({ values: Object.fromEntries(r.parameterNames.map((n, j) => [n, h.values[j]!.toString()])), share: Math.round(h.share * 1000) / 1000 })) };
        ctx.scopResults.push({ pass: 'profile-use', function: fn.name, location: r.location, fields: { profileEntries: Number(p.entries), ...fields } });
      }
      // Lines of this function, but none of this version of it: it changed since the profile was taken.
      const versions = profile.functions.get(fn.name);
      if (fnStale || (versions !== undefined && !versions.has(fingerprint))) stale.push(fn.name);
    }
    if (stale.length > 0) ctx.log.warn(`profile ${file} is stale for ${stale.join(', ')} (the function changed since it was taken): not specialized`);
    else if (matched === 0) ctx.log.warn(`profile ${file} matches no region of this module: no specialization`);
    const done = new Map<IrFunction, Set<unknown>>();
    const made: Specialized[] = [];
    specialized.set(module, made);
    const stats = work.length > 0 && booleanOption(ctx, rtcStatsOption, false) ? new DispatchStats(module) : undefined;
    for (const { fn, region, hot } of work) {
      // A region next to one specialized before it would see that one's copies among its edges.
      const near = done.get(fn) ?? new Set<unknown>();
      if ([region.entering, region.entry, region.exit, ...region.blocks].some((b) => b !== undefined && near.has(b))) continue;
      for (const b of [region.entering, region.entry, region.exit, ...region.blocks]) if (b !== undefined) near.add(b);
      done.set(fn, near);
      const label = `${region.entry.name ?? 'region'}.tsopt.r${region.index}`;
      const specialization = specializeRegion({ fn, ...region }, hot.map((h) => h.values), label);
      const counted = stats?.instrument(fn.name, region.location, region.entering, specialization.tests);
      if (counted) nameUnnamed(counted, `${label}.stats`);
      made.push({ function: fn.name, location: region.location, specialization });
      ctx.stats.set('specialized-regions', (ctx.stats.get('specialized-regions') ?? 0) + 1);
      ctx.stats.set('specialized-versions', (ctx.stats.get('specialized-versions') ?? 0) + hot.length);
      ctx.remarks.push({ pass: 'profile-use', kind: 'applied', function: fn.name, location: region.location, message: `${hot.length} specialized version(s) for ${region.parameterNames.join(', ')}` });
    }
    stats?.finish();
    return work.length > 0 ? 'none' : 'all';
  },
};

export const profileFallbacksPass: ModulePass = {
  name: 'profile-use-fallbacks',
  description: 'after versioning: a specialized copy that got no fast path where the general code got one is not dispatched to (the CLI runs it last with --profile-use)',
  run(module: Module, ctx: PassContext): Preserved {
    let changed = false;
    for (const s of specialized.get(module) ?? []) {
      const dropped = dropCopiesWithoutFastPath(s.specialization);
      if (dropped === 0) continue;
      changed = true;
      ctx.stats.set('dropped-versions', (ctx.stats.get('dropped-versions') ?? 0) + dropped);
      ctx.scopResults.push({ pass: 'profile-use', function: s.function, location: s.location, fields: { specializationsDropped: dropped } });
    }
    specialized.delete(module);
    return changed ? 'none' : 'all';
  },
};

export const profilePasses: readonly ModulePass[] = [profileGeneratePass, profileUsePass, profileFallbacksPass];

/**
 * `passes` with the profile pass `--profile-generate`/`--profile-use` asks for in front (they
 * must see the module as clang made it), unless the pipeline names it already.
 */
export function withProfilePasses(passes: ModulePass[], options: ReadonlyMap<string, string>): ModulePass[] {
  const generate = profileGenerateFile(options) !== undefined;
  const use = options.has(profileUseOption.name);
  if (generate && use) throw new TsoptError('--profile-generate and --profile-use cannot be combined (build once with each)');
  const pass = generate ? profileGeneratePass : use ? profileUsePass : undefined;
  if (!pass || passes.length === 0 || passes.includes(pass)) return passes;
  return use ? [pass, ...passes, profileFallbacksPass] : [pass, ...passes];
}

// The bench's profile variants (issue #19): `tscc-profgen`, tscc with -ftsopt-profile-generate (what
// the instrumentation costs), and `tscc-prof`, tscc with -ftsopt-profile-use of a profile taken
// just before by a training build of the same flags, run once on the checking input and once on
// the timing input (so the checking run goes through a specialized version too, and the timed one
// through the version for its own values). PolyBench's sizes are macros: its parameters are
// constants already, and its profile changes nothing but must slow nothing down.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';

export type ProfileKind = 'generate' | 'use';

/** The two variants, compiling with `tscc.js` at `tsccJs`. */
export function profileVariants(tsccJs: string): { name: string; cc: string[]; cxx: string[]; profile: ProfileKind }[] {
  const tscc = [process.execPath, tsccJs, '-O3', '-march=native'];
  return [
    { name: 'tscc-profgen', cc: tscc, cxx: tscc, profile: 'generate' },
    { name: 'tscc-prof', cc: tscc, cxx: tscc, profile: 'use' },
  ];
}

/** The profile a `use` build of `exe` reads. */
function profileOf(exe: string): string {
  return `${exe}.tsopt-profile.json`;
}

/** The flags a profile variant's build of `exe` adds. */
export function profileFlags(kind: ProfileKind, exe: string): string[] {
  // The instrumented build's own runs (checking and timing) append to a file of their own.
  return kind === 'generate' ? [`-ftsopt-profile-generate=${exe}.runs-profile.json`] : [`-ftsopt-profile-use=${profileOf(exe)}`];
}

/**
 * Takes the profile a `use` build of `exe` reads: `build(flags, out)` builds the program with the
 * variant's compiler and `flags`, and the instrumented program runs on each of `inputs`.
 */
export function trainProfile(exe: string, inputs: readonly (readonly string[])[], build: (flags: string[], out: string) => string | undefined): string | undefined {
  const profile = profileOf(exe);
  fs.rmSync(profile, { force: true });
  const train = `${exe}.train`;
  const err = build([`-ftsopt-profile-generate=${profile}`], train);
  if (err !== undefined) return `training build: ${err}`;
  for (const args of inputs) {
    const r = spawnSync(train, args, { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 28 });
    if (r.error || r.status !== 0) return `training run ${args.join(' ')}: ${r.error?.message ?? `exit ${r.status}`}`;
  }
  return undefined;
}

// The bench's profile variants (issue #19): `tscc-profgen`, tscc with -ftsopt-profile-generate (what
// the instrumentation costs), and `tscc-prof`, tscc with -ftsopt-profile-use of a profile taken
// just before by a training build of the same flags, run once on the checking input and once on
// the timing input (so the checking run goes through a specialized version too, and the timed one
// through the version for its own values). PolyBench's sizes are macros: its parameters are
// constants already, and its profile changes nothing but must slow nothing down.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { hotValues, readProfile } from '../passes/profile-data';

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

/** tsopt's default `--profile-max-versions`: the versions per region a profile-use build makes. */
const DEFAULT_MAX_VERSIONS = 2;

/**
 * What the profile a `use` build of `exe` read offers it, in one line (and whether the executable
 * is tscc's own, `plainExe`, byte for byte): per profiled region, the
 * share of its entries its hot values cover and whether that is enough for a version
 * (passes/profile-data.ts's rule), or why there is nothing to specialize. Only regions with
 * run-time parameters are profiled (SCoPs, and regions rejected for causes constants remove): a
 * program without one leaves no profile at all.
 */
export function profileOutcome(exe: string, plainExe?: string): string {
  // Byte for byte tscc's executable: the profile changed nothing, its timings compare a program with itself.
  const same = plainExe !== undefined && fs.existsSync(plainExe) && fs.readFileSync(plainExe).equals(fs.readFileSync(exe)) ? '; the executable is byte-identical to tscc\'s' : '';
  return `${offered(exe)}${same}`;
}

function offered(exe: string): string {
  const read = readProfile(profileOf(exe));
  if (!read.ok) {
    return read.why === 'no such file' || read.why === 'it is empty'
      ? 'nothing profiled: no region entered has a run-time parameter (sizes are constants, or regions are rejected for causes constants do not remove)'
      : `profile not usable: ${read.why}`;
  }
  const percent = (n: bigint, total: bigint) => `${total === 0n ? 0 : Number((n * 1000n) / total) / 10}%`;
  return [...read.regions.values()].map((r) => {
    const hot = hotValues(r, DEFAULT_MAX_VERSIONS);
    const where = `${r.function}#${r.region}`;
    if (hot.length > 0) return `${where}: ${hot.length} hot tuple(s) cover ${percent(hot.reduce((s, h) => s + h.entries, 0n), r.entries)} of ${r.entries} entries: a version each`;
    const top = [...r.counts.values()].sort((a, b) => (b > a ? 1 : b < a ? -1 : 0)).slice(0, DEFAULT_MAX_VERSIONS).reduce((s, n) => s + n, 0n);
    return `${where}: no version, its top ${DEFAULT_MAX_VERSIONS} tuples cover ${percent(top, r.entries)} of ${r.entries} entries (${r.other} in no slot)`;
  }).join('; ');
}

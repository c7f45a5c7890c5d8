// Reading a profile written by `--profile-generate` (format: codegen/profile-instrument.ts):
// JSON lines, one per region per program run, merged here by summing the lines of a region.
// A profile that cannot be read as a whole (missing, a line that is not a record) is refused
// with one sentence saying why; the pass turns that into a warning and specializes nothing.
import * as fs from 'node:fs';
import { PROFILE_FORMAT_VERSION } from '../codegen/profile-instrument';

/** One region's merged profile. */
export interface RegionProfile {
  readonly function: string;
  readonly fingerprint: string;
  readonly region: number;
  readonly parameters: readonly string[];
  /** Entries into the region over all runs. */
  entries: bigint;
  /** Entries whose values no slot held. */
  other: bigint;
  /** Value tuple (decimal strings joined by ',') → entries with those values. */
  readonly counts: Map<string, bigint>;
}

/** `regions` by `regionProfileKey`; `functions`: the fingerprints the profile has lines of, by function name. */
export type ProfileRead = { ok: true; regions: Map<string, RegionProfile>; functions: Map<string, Set<string>> } | { ok: false; why: string };

/**
 * The key a region's profile is found under: programs that share a profile file (a Makefile
 * project's, by default) each have their own `main`, told apart by its fingerprint.
 */
export function regionProfileKey(fn: string, fingerprint: string, region: number): string {
  return `${fn}\u0000${fingerprint}\u0000${region}`;
}

const INTEGER = /^-?\d{1,19}$/;

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** One line as a record, or why it is not one. */
function parseLine(line: string): { fn: string; fingerprint: string; region: number; parameters: string[]; entries: bigint; other: bigint; top: [bigint, string[]][] } | string {
  let x: unknown;
  try {
    x = JSON.parse(line);
  } catch {
    return 'a line is not JSON (truncated?)';
  }
  if (!isRecord(x) || x.tsoptProfile !== PROFILE_FORMAT_VERSION) return `a line is not a tsopt profile record of format ${PROFILE_FORMAT_VERSION}`;
  const { function: fn, fingerprint, region, parameters, entries, other, top } = x;
  if (typeof fn !== 'string' || typeof fingerprint !== 'string' || !Number.isInteger(region) || !Array.isArray(parameters) || !parameters.every((p) => typeof p === 'string')) return 'a record lacks its function, fingerprint, region or parameters';
  if (!Number.isInteger(entries) || !Number.isInteger(other) || (entries as number) < 0 || (other as number) < 0 || !Array.isArray(top)) return 'a record lacks its counts';
  const slots: [bigint, string[]][] = [];
  let sum = BigInt(other as number);
  for (const s of top) {
    if (!Array.isArray(s) || s.length !== 2 || !Number.isInteger(s[0]) || s[0] < 0 || !Array.isArray(s[1]) || s[1].length !== parameters.length || !s[1].every((v: unknown) => typeof v === 'string' && INTEGER.test(v))) {
      return 'a record has a malformed slot';
    }
    slots.push([BigInt(s[0] as number), s[1] as string[]]);
    sum += BigInt(s[0] as number);
  }
  if (sum !== BigInt(entries as number)) return 'a record\'s counts do not add up';
  return { fn, fingerprint, region: region as number, parameters: parameters as string[], entries: BigInt(entries as number), other: BigInt(other as number), top: slots };
}

/** Reads and merges the profile at `file`. */
export function readProfile(file: string): ProfileRead {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { ok: false, why: code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? String(e)})` };
  }
  const regions = new Map<string, RegionProfile>();
  const functions = new Map<string, Set<string>>();
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) return { ok: false, why: 'it is empty' };
  for (let i = 0; i < lines.length; i++) {
    const r = parseLine(lines[i]!);
    if (typeof r === 'string') return { ok: false, why: `line ${i + 1}: ${r}` };
    const key = regionProfileKey(r.fn, r.fingerprint, r.region);
    if (!functions.has(r.fn)) functions.set(r.fn, new Set());
    functions.get(r.fn)!.add(r.fingerprint);
    let merged = regions.get(key);
    if (merged && merged.parameters.join() !== r.parameters.join()) return { ok: false, why: `line ${i + 1}: region ${r.region} of ${r.fn} has other parameters than before` };
    if (!merged) {
      merged = { function: r.fn, fingerprint: r.fingerprint, region: r.region, parameters: r.parameters, entries: 0n, other: 0n, counts: new Map() };
      regions.set(key, merged);
    }
    merged.entries += r.entries;
    merged.other += r.other;
    for (const [count, values] of r.top) {
      if (count === 0n) continue;
      const k = values.join(',');
      merged.counts.set(k, (merged.counts.get(k) ?? 0n) + count);
    }
  }
  return { ok: true, regions, functions };
}

/** A value tuple chosen for a specialized version, with its share of the region's entries. */
export interface HotValues {
  readonly values: readonly bigint[];
  readonly entries: bigint;
  readonly share: number;
}

/**
 * The tuples worth a version of their own: the most frequent ones, at most `maxVersions`, each
 * with at least `minShare` of the entries; none unless together they cover `minCoverage` of them
 * (the "top values cover most entries").
 */
export function hotValues(profile: RegionProfile, maxVersions: number, minShare = 0.05, minCoverage = 0.5): HotValues[] {
  if (profile.entries === 0n || maxVersions === 0) return [];
  const total = Number(profile.entries);
  const sorted = [...profile.counts].sort((a, b) => (b[1] > a[1] ? 1 : b[1] < a[1] ? -1 : a[0] < b[0] ? -1 : 1));
  const chosen = sorted
    .slice(0, maxVersions)
    .map(([k, n]) => ({ values: k === '' ? [] : k.split(',').map((v) => BigInt(v)), entries: n, share: Number(n) / total }))
    .filter((h) => h.share >= minShare);
  const covered = chosen.reduce((s, h) => s + h.share, 0);
  return covered >= minCoverage ? chosen : [];
}

// tscc's profile flags (issue #19): `-ftsopt-profile-generate[=FILE]` and `-ftsopt-profile-use=FILE`
// become tsopt's `--profile-generate[=FILE]`/`--profile-use=FILE` and are taken out of what
// clang sees. They are spelled apart from clang's own -fprofile-generate/-fprofile-use (its
// PGO, which tscc leaves to clang) so that both can be used in one build.

const GENERATE = '-ftsopt-profile-generate';
const USE = '-ftsopt-profile-use';

/** `argv` without our profile flags, and the tsopt flags they stand for (the last of each kind wins in tsopt). */
export function takeProfileFlags(argv: readonly string[]): { argv: string[]; tsoptFlags: string[] } {
  const rest: string[] = [];
  const tsoptFlags: string[] = [];
  for (const a of argv) {
    if (a === GENERATE) tsoptFlags.push('--profile-generate');
    else if (a.startsWith(`${GENERATE}=`)) tsoptFlags.push(`--profile-generate=${a.slice(GENERATE.length + 1)}`);
    else if (a === USE) throw new Error(`${USE} needs a file: ${USE}=FILE`);
    else if (a.startsWith(`${USE}=`)) tsoptFlags.push(`--profile-use=${a.slice(USE.length + 1)}`);
    else rest.push(a);
  }
  return { argv: rest, tsoptFlags };
}

// opt's spellings on tsopt's command line. opt-14 (LLVM's cl::opt) takes long options with one
// dash or two (`-passes=…`, `--passes=…`); yargs reads `-passes` as the short flags -p -a -s….
// So a single-dash word longer than one letter is given its second dash, and opt's -O levels,
// which would run LLVM's whole pipeline over IR clang -O3 already optimized, get a message
// saying what tsopt does instead.
import { TsoptError } from '../ir/errors';

export function normalizeOptSpellings(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      out.push(...args.slice(i));
      break;
    }
    if (/^-O([0-3sz]|fast)?$/.test(a)) {
      throw new TsoptError(
        `${a} is opt's whole optimization pipeline; tsopt expects IR clang -O3 already optimized, runs --passes (default versioning) and then opt-14's vectorizers (--post-pipeline); drop ${a}`,
      );
    }
    // yargs would take a missing value as the default (stdout) and write bitcode there.
    if ((a === '-o' || a === '--output') && (i + 1 === args.length || (args[i + 1].startsWith('-') && args[i + 1] !== '-'))) {
      throw new TsoptError(`${a} needs a file name (- for stdout)`);
    }
    const name = /^-([A-Za-z][\w<>-]*)(=|$)/.exec(a)?.[1];
    out.push(name !== undefined && name.length > 1 ? `-${a}` : a);
  }
  return out;
}

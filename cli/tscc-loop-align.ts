// The loop alignment of tscc's code generation step.
//
// A hot loop whose body crosses a 64-byte boundary is fetched from two 64-byte windows every
// iteration (the op cache and fetch of AMD's Zen cores and the decoded-icache lines of Intel's
// work in such windows), and a short loop then runs up to twice as slow. llc aligns loops to 16
// bytes, so whether a loop crosses such a boundary depends on where its function lands, which
// changes with the size of every function before it: tsopt's fast paths move the code after them,
// and a loop tsopt left exactly as clang compiled it can cross a boundary in tscc's build and not in
// clang's. Aligning the innermost loops to 64 bytes takes that chance away for every loop of up to
// 64 bytes; outer loops keep llc's alignment.
import type { ParsedCommand } from './tscc-args';

/** log2 of the alignment tscc asks for innermost loops: 64 bytes. */
export const INNERMOST_LOOP_ALIGN_LOG2 = 6;

/** The target triple's architecture the codegen step compiles for: the user's -target, else this machine's. */
function targetArch(flags: readonly string[]): string {
  let triple: string | undefined;
  for (let i = 0; i < flags.length; i++) {
    const a = flags[i];
    if ((a === '-target' || a === '--target') && i + 1 < flags.length) triple = flags[i + 1];
    else if (a.startsWith('--target=')) triple = a.slice('--target='.length);
  }
  if (triple !== undefined) return triple.split('-')[0];
  return process.arch === 'x64' ? 'x86_64' : process.arch === 'ia32' ? 'i386' : process.arch;
}

/**
 * The flags that align innermost loops to 64 bytes in the codegen step, or none: when the target
 * is not x86 (the option is x86's), when the user chose a loop alignment (`-falign-loops[=N]`,
 * `-fno-align-loops`, or llc's own options through -mllvm), and at -Os/-Oz (llc aligns nothing
 * in functions optimized for size).
 */
export function loopAlignFlags(cmd: Pick<ParsedCommand, 'optLevel'>, flags: readonly string[]): string[] {
  if (!/^(x86_64|i[3-6]86)$/.test(targetArch(flags))) return [];
  if (cmd.optLevel === 's' || cmd.optLevel === 'z') return [];
  const userChose = flags.some((a, i) =>
    /^-f(no-)?align-loops(=|$)/.test(a) ||
    (flags[i - 1] === '-mllvm' && /^-(align-loops|x86-experimental-pref-(innermost-)?loop-alignment)=/.test(a)));
  if (userChose) return [];
  return ['-mllvm', `-x86-experimental-pref-innermost-loop-alignment=${INNERMOST_LOOP_ALIGN_LOG2}`];
}

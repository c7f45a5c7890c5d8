// What opt-14 must be told of the target for its cost model to be clang -O3's.
//
// clang runs its -O3 pipeline with the target machine it compiles for, and on Debian x86-64 that
// machine is position-independent (PIE by default): a global's address is RIP-relative and takes
// no index register, so `@a + 4*i` costs an instruction. opt-14 builds its target machine static
// unless told otherwise, and then counts that address as free. The loop unroller sizes a loop's
// body with these costs, so opt unrolled more than clang -O3 does on the same IR: TSVC's s276 50
// vectors a trip against clang's 40 (spilling twice as many registers), s4117 twice clang's
// gathers, vsumr 160 additions against 125. With the same relocation model, opt's output for
// those loops is clang -O3's, instruction for instruction.
//
// The module says how clang compiled it: its module flag "PIC Level" (present for -fPIC and
// -fPIE, the default, and absent for -fno-pic), which is also what makes clang's own code
// generation position-independent.

/** A "PIC Level" module flag (`!{i32 8, !"PIC Level", i32 2}`, behaviour and level any). */
const PIC_LEVEL_FLAG = /^!\d+ = !\{i32 \d+, !"PIC Level", i32 [1-9]\d*\}$/m;

/** The opt-14 options that give its cost model the target machine clang compiled `moduleText` (LLVM's IR text) for. */
export function optTargetArgs(moduleText: string): string[] {
  return PIC_LEVEL_FLAG.test(moduleText) ? ['-relocation-model=pic'] : [];
}

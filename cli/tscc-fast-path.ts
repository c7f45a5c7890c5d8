// tscc's short way for a module in which no function can loop: SCoP detection admits only
// regions holding a loop, so tsopt would leave such a module as it is. tscc then compiles the
// source with clang-14 itself, as it does for a module tsopt left unchanged (cli/outcome.ts),
// instead of starting tsopt (issue 16): clang's own object, at a fraction of the CPU.
import * as fs from 'node:fs';
import { mayHaveLoops } from '../ir/cycle-scan';

/** Whether the IR text file the front end wrote has nothing for tsopt's passes (no function can loop). */
export function isLoopFree(irTextFile: string): boolean {
  return !mayHaveLoops(fs.readFileSync(irTextFile, 'utf8'));
}

// C math library calls that write nothing but errno (clang's default -fmath-errno leaves
// `call double @sqrt(double)` with `writeonly`, not `llvm.sqrt`): statements like any other.
//
// Why reordering them keeps errno as clang -O3's build leaves it: the fast path runs each of
// the SCoP's statement instances exactly once, each math call with the same argument as the
// original, so the same calls fail; errno after the SCoP is the value the last failing call
// stored. When every math call of a SCoP can store only one value (sqrt only EDOM, exp only
// ERANGE), that value is the same whatever the order; detection rejects a SCoP whose math calls
// could store two different values (pow: EDOM or ERANGE), since their order would then decide.
// Nothing in a SCoP reads errno (`__errno_location` is a call with side effects, rejected).
import { type BasicBlock, type Instruction, type Module, calledFunction, callAttributes } from '../ir';

export type ErrnoValue = 'EDOM' | 'ERANGE';

const EDOM: readonly ErrnoValue[] = ['EDOM'];
const ERANGE: readonly ErrnoValue[] = ['ERANGE'];
const BOTH: readonly ErrnoValue[] = ['EDOM', 'ERANGE'];
const NONE: readonly ErrnoValue[] = [];

/** glibc's errno values per function (double, float and long double spellings alike). */
const ERRNO_OF: ReadonlyMap<string, readonly ErrnoValue[]> = new Map(
  ([
    ['sqrt', EDOM], ['sin', EDOM], ['cos', EDOM], ['tan', EDOM],
    ['exp', ERANGE], ['exp2', ERANGE], ['expm1', ERANGE],
    ['fabs', NONE],
    ['pow', BOTH], ['log', BOTH], ['log2', BOTH], ['log10', BOTH],
  ] as const).flatMap(([name, values]) => [[name, values], [`${name}f`, values], [`${name}l`, values]] as [string, readonly ErrnoValue[]][]),
);

/**
 * The errno values a call to a math function may store, or undefined when `call` is not such a
 * call: a direct call of the library's declaration (not a definition of the program's own), that
 * neither unwinds nor reads memory.
 */
export function mathCallErrno(call: Instruction, module: Module): readonly ErrnoValue[] | undefined {
  if (call.opcode !== 'call') return undefined;
  const callee = calledFunction(call);
  if (!callee || !callee.isDeclaration) return undefined;
  const values = ERRNO_OF.get(callee.name);
  if (!values) return undefined;
  const attrs = callAttributes(call, module);
  if (!attrs.has('nounwind') || !(attrs.has('writeonly') || attrs.has('readnone'))) return undefined;
  return values;
}

/** True for a call `mathCallErrno` describes. */
export function isMathCall(call: Instruction, module: Module): boolean {
  return mathCallErrno(call, module) !== undefined;
}

/** Why the math calls of these blocks cannot be reordered: they may store different errno values. */
export function mathErrnoIssue(blocks: readonly BasicBlock[], module: Module): { detail: string; at: Instruction } | undefined {
  const seen = new Map<ErrnoValue, Instruction>();
  for (const b of blocks) {
    for (const i of b.instructions) {
      for (const v of mathCallErrno(i, module) ?? []) if (!seen.has(v)) seen.set(v, i);
    }
  }
  if (seen.size < 2) return undefined;
  const names = [...new Set([...seen.values()].map((i) => `@${calledFunction(i)!.name}`))].join(', ');
  return { detail: `math calls (${names}) may set errno to EDOM or ERANGE: their order would decide errno`, at: [...seen.values()][1]! };
}

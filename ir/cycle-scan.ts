// A cheap look at LLVM's IR text, before any parse: can some function of the module loop?
// SCoP detection only admits regions holding a loop (analysis/scop-detection.ts), so a module
// whose every control-flow graph is acyclic has nothing for tsopt's passes to do. tscc uses
// this to send such a module straight to the post pipeline (cli/tscc-fast-path.ts).
//
// Why a label reference suffices: in any order of a function's blocks, a cycle has at least one
// edge from a block to itself or to one placed before it. Every edge of LLVM's text is a
// `label %name` operand of a terminator (br, switch, indirectbr, invoke, callbr, catchswitch,
// cleanupret, catchret), so a function none of whose blocks names its own or an earlier block
// has no cycle. Entry blocks have no predecessors, so an unnamed entry never needs a name here.
// `blockaddress(@f, %bb)` names no edge; it may only make the scan say "may loop", never the reverse.

/** A block name as the printer writes it: a bare name or number, or a quoted string. */
const NAME = String.raw`("(?:[^"\\]|\\.)*"|[-a-zA-Z$._0-9]+)`;
const BLOCK_LABEL = new RegExp(`^${NAME}:`);
const LABEL_OPERAND = new RegExp(String.raw`\blabel %${NAME}`, 'g');
const BLOCK_ADDRESS = /\bblockaddress\(/;

/**
 * Whether some function defined in `text` (LLVM IR as clang or opt prints it) may contain a
 * cycle of blocks. False only when every function's graph is acyclic for certain.
 */
export function mayHaveLoops(text: string): boolean {
  let inBody = false;
  let seen = new Set<string>();
  for (const line of text.split('\n')) {
    if (!inBody) {
      if (line.startsWith('define ')) {
        inBody = true;
        seen = new Set();
      }
      continue;
    }
    if (line === '}') {
      inBody = false;
      continue;
    }
    const label = BLOCK_LABEL.exec(line);
    if (label) {
      seen.add(label[1]!);
      continue;
    }
    if (BLOCK_ADDRESS.test(line)) return true;
    for (const m of line.matchAll(LABEL_OPERAND)) {
      if (seen.has(m[1]!)) return true;
    }
  }
  return inBody;
}

// Which functions of two builds of one program are the same machine code: the run's control group.
//
// Most of TSVC's loops are functions tsopt leaves as clang compiled them (no SCoP, or a fast path
// the profitability rule dropped). Their speedups over clang -O3 measure nothing but the run's
// noise, so their geometric mean is what "1.00" looks like in that run: a run where they sit at
// 1.08 inflates every ratio by as much (issue 24's first figures were wall-clock times of two
// builds run one after the other under a changing load). The bench reports the geomean of the
// same-code loops beside the geomean of the others.
//
// Two functions are the same code when they have the same basic blocks, in order, each with the
// same instructions once what depends only on where the code and data landed is taken out:
// padding (nops, which tscc's loop alignment adds), branch and call targets (kept as the symbol
// they name), and the displacement of RIP-relative operands (kept as the symbol objdump names for
// it, with its offset, except in the read-only data objdump names after its first symbol,
// `_IO_stdin_used`, where string literals and constants land wherever the build put them: those
// are compared by their use only). Inside a block the order is free: the bench's TSVC program
// inlines its CPU timer (clock_gettime) into every loop's function, and tscc's route through opt
// schedules a register's zeroing a few places apart in that set-up, outside any loop (42 of
// TSVC's loops differ from clang's build in nothing else).
import { spawnSync } from 'node:child_process';

/** One instruction of objdump's output without its address, target address or padding role; undefined for padding. */
export function normalizeInstruction(text: string): string | undefined {
  const [code, comment] = text.split('#', 2) as [string, string | undefined];
  let ins = code.trim().replace(/\s+/g, ' ');
  if (ins === '' || /^(data16 |cs |ds )*(nop[wl]?|xchg %ax,%ax)\b/.test(ins) || ins === 'int3') return undefined;
  // `jne 1260 <s000+0x80>`, `call 66020 <initialise_arrays>`: the target as its symbol only,
  // without an offset into the function, which padding moves.
  ins = ins.replace(/\b[0-9a-f]+ <([^>+]+)(\+0x[0-9a-f]+)?>$/, (_, sym: string) => `<${sym}>`);
  // `lea 0x1bfede(%rip),%rbx  # 1d24c0 <aa>`: the displacement as the symbol it reaches.
  const target = comment === undefined ? undefined : /<([^>]+)>/.exec(comment)?.[1]?.replace(/^(_IO_stdin_used)\+0x[0-9a-f]+$/, '$1');
  if (target !== undefined) ins = ins.replace(/-?0x[0-9a-f]+\(%rip\)/, `<${target}>(%rip)`);
  return ins;
}

/** A function's basic blocks, each its normalized instructions in order. */
export type FunctionBody = string[][];

/** Each function's basic blocks in the disassembly `text` (`objdump -d --no-show-raw-insn`): a block ends after a jump or return and starts at a jump's target. */
export function functionBodies(text: string): Map<string, FunctionBody> {
  const bodies = new Map<string, FunctionBody>();
  let name: string | undefined;
  let lines: { address: number; text: string }[] = [];
  const finish = () => {
    if (name !== undefined) bodies.set(name, basicBlocks(lines));
  };
  for (const line of text.split('\n')) {
    const head = /^[0-9a-f]+ <([^>]+)>:$/.exec(line);
    if (head) {
      finish();
      name = head[1]!;
      lines = [];
      continue;
    }
    const ins = /^\s+([0-9a-f]+):\t(.*)$/.exec(line);
    if (ins && name !== undefined) lines.push({ address: parseInt(ins[1]!, 16), text: ins[2]! });
  }
  finish();
  return bodies;
}

/** One function's instructions split into basic blocks, padding dropped. */
function basicBlocks(lines: readonly { address: number; text: string }[]): FunctionBody {
  const jump = /^(j[a-z]+|ret[a-z]*)\b/;
  const targets = new Set<number>();
  for (const l of lines) {
    const t = /^j[a-z]+\s+([0-9a-f]+) </.exec(l.text.trim());
    if (t) targets.add(parseInt(t[1]!, 16));
  }
  const blocks: FunctionBody = [];
  let block: string[] = [];
  const close = () => {
    if (block.length > 0) blocks.push(block);
    block = [];
  };
  for (const l of lines) {
    if (targets.has(l.address)) close();
    const n = normalizeInstruction(l.text);
    if (n === undefined) continue;
    block.push(n);
    if (jump.test(n)) close();
  }
  close();
  return blocks;
}

/** An executable's functions (functionBodies of its objdump), or the reason there are none. */
export function disassemble(exe: string): Map<string, FunctionBody> | { error: string } {
  const r = spawnSync('objdump', ['-d', '--no-show-raw-insn', exe], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error || r.status !== 0) return { error: `objdump -d ${exe}: ${r.error?.message ?? r.stderr.split('\n')[0]}` };
  return functionBodies(r.stdout);
}

/** The names among `names` whose function is the same code in both builds (present in both, the same blocks in order, each with the same instructions in any order). */
export function sameCode(a: ReadonlyMap<string, FunctionBody>, b: ReadonlyMap<string, FunctionBody>, names: readonly string[]): Set<string> {
  const sorted = (block: readonly string[]) => [...block].sort().join('\n');
  const same = new Set<string>();
  for (const name of names) {
    const x = a.get(name);
    const y = b.get(name);
    if (x !== undefined && y !== undefined && x.length === y.length && x.every((block, i) => sorted(block) === sorted(y[i]!))) same.add(name);
  }
  return same;
}

/** A variant's programs split by whether they are clang -O3's machine code, with each part's geomean speedup. */
export interface SameCodeSummary {
  /** Programs whose function is clang -O3's code: their geomean is the run's noise. */
  same: string[];
  sameGeomean?: number;
  /** The other programs' geomean: what the variant changed. */
  changedGeomean?: number;
}

/** The line the bench prints for a variant's SameCodeSummary. */
export function sameCodeLine(variant: string, s: SameCodeSummary, programs: number): string {
  const g = (x: number | undefined) => (x === undefined ? '-' : `${x.toFixed(2)}x`);
  return `${variant}: ${s.same.length} of ${programs} compile to clang -O3's machine code (geomean ${g(s.sameGeomean)}: the run's noise), the other ${programs - s.same.length} ${g(s.changedGeomean)}`;
}

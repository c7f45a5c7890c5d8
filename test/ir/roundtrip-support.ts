// Round-trip checking in batches: our parse+print, then LLVM's own parse+print of both the
// input and our output, compared without the ModuleID line and `; preds` comments.
// LLVM runs once per batch (one shell loop), not once per module from Node.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseModule, printModule } from '../../ir';
import { normalizeLlvmText, runOk, tempDir } from '../support/tools';

export interface RoundTripCase {
  /** A file-name-safe label. */
  name: string;
  /** Textual IR as clang-14 -S or llvm-dis-14 printed it. */
  text: string;
}

/**
 * LLVM's print (`llvm-as-14 | llvm-dis-14`) of every `*.ll` file in `dir`, as `<file>.llvm`.
 * A file LLVM rejects gets its error message in `<file>.err` instead.
 */
export function llvmReprintDir(dir: string): void {
  const script =
    'for f in "$1"/*.ll; do ' +
    'if llvm-as-14 -o "$f.bc" "$f" 2> "$f.err"; then rm -f "$f.err"; llvm-dis-14 -o "$f.llvm" "$f.bc"; rm -f "$f.bc"; fi; ' +
    'done';
  runOk('sh', ['-c', script, 'sh', dir]);
}

/** Runs the round trip on all cases; returns one line per failure (empty when all pass). */
export function checkRoundTrips(cases: readonly RoundTripCase[]): string[] {
  const dir = tempDir('tsopt-ir-rt-');
  const failures: string[] = [];
  const ours = new Map<string, string>();
  for (const c of cases) {
    fs.writeFileSync(path.join(dir, `${c.name}.in.ll`), c.text);
    try {
      const printed = printModule(parseModule(c.text, c.name));
      const again = printModule(parseModule(printed, c.name + ' (printed)'));
      if (again !== printed) failures.push(`${c.name}: printing is not stable (print(parse(print(parse(x)))) differs)`);
      ours.set(c.name, printed);
      fs.writeFileSync(path.join(dir, `${c.name}.out.ll`), printed);
    } catch (e) {
      failures.push(`${c.name}: ${(e as Error).message}`);
    }
  }
  llvmReprintDir(dir);
  for (const c of cases) {
    if (!ours.has(c.name)) continue;
    const base = path.join(dir, c.name);
    if (fs.existsSync(`${base}.in.ll.err`)) {
      failures.push(`${c.name}: LLVM rejects the input itself: ${fs.readFileSync(`${base}.in.ll.err`, 'utf8').split('\n')[0]}`);
      continue;
    }
    if (fs.existsSync(`${base}.out.ll.err`)) {
      failures.push(`${c.name}: LLVM rejects our output: ${fs.readFileSync(`${base}.out.ll.err`, 'utf8').split('\n')[0]}`);
      continue;
    }
    const want = normalizeLlvmText(fs.readFileSync(`${base}.in.ll.llvm`, 'utf8')).split('\n');
    const got = normalizeLlvmText(fs.readFileSync(`${base}.out.ll.llvm`, 'utf8')).split('\n');
    let i = 0;
    while (i < want.length && want[i] === got[i]) i++;
    if (i < want.length || want.length !== got.length) {
      failures.push(`${c.name}: differs at line ${i + 1}:\n  want: ${want[i] ?? '<end>'}\n  got:  ${got[i] ?? '<end>'}`);
    }
  }
  if (failures.length === 0) fs.rmSync(dir, { recursive: true, force: true });
  else failures.push(`(files kept in ${dir})`);
  return failures;
}

/** Number of lines in a set of source files (to show how much real code a test covers). */
export function countLines(files: readonly string[]): number {
  let n = 0;
  for (const f of files) n += fs.readFileSync(f, 'utf8').split('\n').length;
  return n;
}

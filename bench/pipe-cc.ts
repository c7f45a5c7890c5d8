// The bare pipe as a compiler command, for the benchmark's `pipe` variant:
//   node dist/bench/pipe-cc.js CLANG-FLAGS... SOURCES... -o EXE [-lLIB...]
// compiles each C source exactly as README's pipe does,
//   clang-14 CLANG-FLAGS -fno-vectorize -fno-slp-vectorize -emit-llvm -c SRC -o - | tsopt $TSOPT_FLAGS | llc-14 -O3 -relocation-model=pic -filetype=obj
// and links the objects with clang-14. Unlike tscc, clang's -O3 unrolls loops before tsopt sees
// them; -march in CLANG-FLAGS reaches llc through the functions' target-cpu attributes.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { splitTsoptFlags } from '../cli/tscc-env';

const TSOPT_JS = path.resolve(__dirname, '..', '..', 'bin', 'tsopt.js');

export interface PipeCommand {
  readonly flags: string[];
  readonly sources: string[];
  readonly output: string;
  readonly libs: string[];
}

export function parsePipeCommand(argv: readonly string[]): PipeCommand {
  const c: PipeCommand = { flags: [], sources: [], output: 'a.out', libs: [] };
  let output: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-o') output = argv[++i];
    else if (/^-l|^-L/.test(a)) c.libs.push(a);
    else if (!a.startsWith('-') && /\.c$/.test(a)) c.sources.push(a);
    else c.flags.push(a);
  }
  if (c.sources.length === 0) throw new Error('no C source given');
  return { ...c, output: output ?? c.output };
}

function step(cmd: string, args: readonly string[], input?: Buffer): Buffer {
  const r = spawnSync(cmd, args, { input, maxBuffer: 1 << 30 });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr.toString().trim().split('\n')[0] ?? `exit ${r.status}`}`);
  return r.stdout;
}

export function compileWithPipe(c: PipeCommand, tsoptFlags: readonly string[]): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsopt-pipe-'));
  try {
    const objects = c.sources.map((src, k) => {
      const ir = step('clang-14', [...c.flags, '-fno-vectorize', '-fno-slp-vectorize', '-emit-llvm', '-c', src, '-o', '-']);
      const bc = step(process.execPath, [TSOPT_JS, ...tsoptFlags], ir);
      const obj = path.join(dir, `${k}.o`);
      step('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], bc);
      return obj;
    });
    step('clang-14', [...objects, '-o', c.output, ...c.libs]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  try {
    compileWithPipe(parsePipeCommand(process.argv.slice(2)), splitTsoptFlags(process.env.TSOPT_FLAGS));
  } catch (e) {
    process.stderr.write(`pipe-cc: error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  }
}

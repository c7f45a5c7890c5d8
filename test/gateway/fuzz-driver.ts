// Runs mutated bitcode through tsopt's `execute` (the command minus flag parsing) in one process,
// as a batch: `node dist/test/gateway/fuzz-driver.js FIRST_SEED COUNT COMPARE_FIRST DIR BITCODE...`
// prints a JSON `FuzzResult` on stdout. fuzz.test.ts starts two of these per batch, one per core: a
// small process forks its LLVM children far faster than a jest worker with a large heap does.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execute, type RunOptions } from '../../cli/run';
import { readInput } from '../../ir/gateway';
import { capturingIo } from '../support/cli-io';
import { disassemble, normalizeLlvmText } from '../support/tools';
import { mutate, type Mutant } from './mutate';

export interface FuzzResult {
  readonly problems: string[];
  readonly rejected: number;
  readonly accepted: number;
  /** Accepted mutants whose output text was compared with LLVM's reading of the mutant. */
  readonly compared: number;
}

const BITCODE_MAGIC = Buffer.from([0x42, 0x43, 0xc0, 0xde]);
const ONE_LINE_ERROR = /^tsopt: error: .+: .+\n$/;

function options(input: string, output: string): RunOptions {
  return {
    input,
    output,
    format: 'bc',
    passes: 'none',
    postPipeline: undefined,
    verifyEach: false,
    report: undefined,
    passOptions: new Map(),
    printStats: false,
    logLevel: 'silent',
    logFormat: 'text',
  };
}

/** Runs one mutant; returns what is wrong, or undefined. */
function check(mutant: Mutant, dir: string, compare: boolean): { problem?: string; status: number } {
  const input = path.join(dir, `mutant-${mutant.seed}.bc`);
  const output = path.join(dir, `out-${mutant.seed}.bc`);
  fs.writeFileSync(input, mutant.bytes);
  const captured = capturingIo();
  const status = execute(options(input, output), captured.io);
  const stderr = captured.stderr();
  const id = `seed ${mutant.seed} (${mutant.mutation})`;
  const out = fs.existsSync(output) ? fs.readFileSync(output) : undefined;
  try {
    if (!fs.readFileSync(input).equals(mutant.bytes)) return { status, problem: `${id}: the input was modified` };
    if (status === 1) {
      if (!ONE_LINE_ERROR.test(stderr)) return { status, problem: `${id}: not one error line: ${JSON.stringify(stderr)}` };
      if (out) return { status, problem: `${id}: failed but left an output file` };
      return { status };
    }
    if (status !== 0) return { status, problem: `${id}: exit ${status}: ${stderr.trim()}` };
    if (!out || !out.subarray(0, 4).equals(BITCODE_MAGIC)) return { status, problem: `${id}: exit 0 without bitcode output` };
    if (compare && normalizeLlvmText(disassemble(out)) !== normalizeLlvmText(readInput(mutant.bytes, 'mutant'))) {
      return { status, problem: `${id}: the output differs from LLVM's reading of the mutant` };
    }
    return { status };
  } finally {
    fs.rmSync(input, { force: true });
    fs.rmSync(output, { force: true });
  }
}

/** Mutants `firstSeed`… of the originals (taken in turn); the first `compareFirst` accepted ones are compared in full. */
export function fuzz(originals: readonly Buffer[], firstSeed: number, count: number, dir: string, compareFirst = 20): FuzzResult {
  const result = { problems: [] as string[], rejected: 0, accepted: 0, compared: 0 };
  for (let seed = firstSeed; seed < firstSeed + count; seed++) {
    const compare = result.compared < compareFirst;
    const { problem, status } = check(mutate(originals[seed % originals.length], seed), dir, compare);
    if (problem) result.problems.push(problem);
    if (status === 0) {
      result.accepted++;
      if (compare) result.compared++;
    } else {
      result.rejected++;
    }
  }
  return result;
}

if (require.main === module) {
  const [first, count, compareFirst, dir, ...files] = process.argv.slice(2);
  const originals = files.map((f) => fs.readFileSync(f));
  process.stdout.write(JSON.stringify(fuzz(originals, Number(first), Number(count), dir, Number(compareFirst))));
}

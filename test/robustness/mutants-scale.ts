// Mutants at scale, a script outside the suite (the suite keeps its 1,000 in
// test/gateway/fuzz.test.ts): COUNT mutated inputs through tsopt's default passes, in one batch
// process at a time (batch.ts: the command's own `main`, restarted after a job that kills it or
// hangs), reporting crashes, hangs, and every rejection that is not one line with exit 1 and no
// output file.
//
//   npm run build && nice node dist/test/robustness/mutants-scale.js [COUNT=10000] [FIRST_SEED=0]
//
// Mutants of bitcode (bit flips, truncations, inserted bytes: test/gateway/mutate.ts) and of
// LLVM's text (lines deleted, duplicated or swapped, a value name or type replaced, a line cut):
// a quarter each of bit flips, truncations and insertions on bitcode, and a quarter of text edits.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { mutate, random } from '../gateway/mutate';
import { compileToIr, kernelsDir, tempDir } from '../support/tools';
import { runTsoptJobs, type Job, type JobOutcome } from './batch';

const ONE_LINE_ERROR = /^tsopt: error: .+: .+\n$/;
const BITCODE_MAGIC = Buffer.from([0x42, 0x43, 0xc0, 0xde]);
const CHUNK = 250;
const JOB_TIMEOUT_MS = 120_000;

type TextEdit = 'delete-line' | 'duplicate-line' | 'swap-lines' | 'rename-value' | 'retype' | 'cut-line';
const TEXT_EDITS: readonly TextEdit[] = ['delete-line', 'duplicate-line', 'swap-lines', 'rename-value', 'retype', 'cut-line'];

/** Text mutant number `seed` of `text`: one to three edits of LLVM's textual IR. */
export function mutateText(text: string, seed: number): { edit: string; bytes: Buffer } {
  const rnd = random(seed);
  const below = (n: number) => Math.floor(rnd() * n);
  const lines = text.split('\n');
  const done: TextEdit[] = [];
  for (let k = 1 + below(3); k > 0; k--) {
    const edit = TEXT_EDITS[below(TEXT_EDITS.length)];
    done.push(edit);
    const at = below(lines.length);
    const line = lines[at];
    if (edit === 'delete-line') lines.splice(at, 1);
    else if (edit === 'duplicate-line') lines.splice(at, 0, line);
    else if (edit === 'swap-lines') {
      const other = below(lines.length);
      [lines[at], lines[other]] = [lines[other], line];
    } else if (edit === 'cut-line') lines[at] = line.slice(0, below(line.length + 1));
    else if (edit === 'rename-value') {
      const names = text.match(/%[\w.]+/g) ?? ['%0'];
      lines[at] = line.replace(/%[\w.]+/, names[below(names.length)]);
    } else {
      const types = ['i1', 'i8', 'i32', 'i64', 'double', 'float', 'i32*', 'void'];
      lines[at] = line.replace(/\b(i1|i8|i16|i32|i64|double|float)\b/, types[below(types.length)]);
    }
  }
  return { edit: done.join('+'), bytes: Buffer.from(lines.join('\n')) };
}

interface Mutant {
  readonly id: string;
  readonly input: string;
  readonly output: string;
}

interface Tally {
  accepted: number;
  rejected: number;
  crashes: string[];
  hangs: string[];
  badRejections: string[];
  badAccepts: string[];
}

function judge(m: Mutant, o: JobOutcome, t: Tally): void {
  const out = fs.existsSync(m.output) ? fs.readFileSync(m.output) : undefined;
  if (o.status === null) {
    (o.died?.startsWith('timeout') ? t.hangs : t.crashes).push(`${m.id}: ${o.died}: ${o.stderr.trim().split('\n').slice(-2).join(' ')}`);
  } else if (o.status === 2) {
    t.crashes.push(`${m.id}: exit 2: ${o.stderr.trim().split('\n')[0]}`);
  } else if (o.status === 1) {
    t.rejected++;
    if (!ONE_LINE_ERROR.test(o.stderr)) t.badRejections.push(`${m.id}: not one error line: ${JSON.stringify(o.stderr.slice(0, 300))}`);
    else if (out) t.badRejections.push(`${m.id}: rejected but left an output file`);
  } else if (o.status === 0) {
    t.accepted++;
    if (!out || !out.subarray(0, 4).equals(BITCODE_MAGIC)) t.badAccepts.push(`${m.id}: exit 0 without bitcode output`);
  } else {
    t.crashes.push(`${m.id}: exit ${o.status}: ${o.stderr.trim().split('\n')[0]}`);
  }
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 10_000);
  const first = Number(process.argv[3] ?? 0);
  const dir = tempDir('tsopt-mutants-');
  const flags = ['-O3', `-I${kernelsDir}`];
  const bitcodes = [
    compileToIr(path.join(kernelsDir, 'example.c'), flags),
    compileToIr(path.join(kernelsDir, 'example.c'), [...flags, '-g']),
    compileToIr(path.join(kernelsDir, 'gemm.c'), [...flags, '-fno-vectorize', '-fno-slp-vectorize']),
  ];
  const texts = [
    compileToIr(path.join(kernelsDir, 'example.c'), flags, true).toString(),
    compileToIr(path.join(kernelsDir, 'jacobi-1d.c'), [...flags, '-fno-vectorize', '-fno-slp-vectorize'], true).toString(),
  ];
  const t: Tally = { accepted: 0, rejected: 0, crashes: [], hangs: [], badRejections: [], badAccepts: [] };
  const started = process.hrtime.bigint();
  try {
    for (let from = first; from < first + count; from += CHUNK) {
      const mutants: Mutant[] = [];
      const jobs: Job[] = [];
      for (let seed = from; seed < Math.min(from + CHUNK, first + count); seed++) {
        let bytes: Buffer;
        let what: string;
        if (seed % 4 === 3) {
          const m = mutateText(texts[seed % texts.length], seed);
          [bytes, what] = [m.bytes, `text ${m.edit}`];
        } else {
          const m = mutate(bitcodes[seed % bitcodes.length], seed);
          [bytes, what] = [m.bytes, m.mutation];
        }
        const input = path.join(dir, `m${seed}.${seed % 4 === 3 ? 'll' : 'bc'}`);
        const output = path.join(dir, `m${seed}.out.bc`);
        fs.writeFileSync(input, bytes);
        const id = `seed ${seed} (${what})`;
        mutants.push({ id, input, output });
        jobs.push({ id, args: [input, '-o', output, '--no-post', '--verify-each'] });
      }
      const outcomes = await runTsoptJobs(jobs, dir, 1, JOB_TIMEOUT_MS);
      outcomes.forEach((o, k) => judge(mutants[k], o, t));
      for (const m of mutants) for (const f of [m.input, m.output]) fs.rmSync(f, { force: true });
      const done = Math.min(from + CHUNK, first + count) - first;
      process.stderr.write(`${done}/${count}: accepted ${t.accepted}, rejected ${t.rejected}, crashes ${t.crashes.length}, hangs ${t.hangs.length}, bad rejections ${t.badRejections.length}, bad accepts ${t.badAccepts.length}\n`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  process.stdout.write(`${JSON.stringify({ mutants: count, firstSeed: first, seconds: Math.round(seconds), ...t }, null, 1)}\n`);
  process.exitCode = t.crashes.length + t.hangs.length + t.badRejections.length + t.badAccepts.length > 0 ? 1 : 0;
}

if (require.main === module) void main();

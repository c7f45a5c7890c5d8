// Parse and print speed of the IR model on a ~20 MB textual module, and linear scaling
// (5 MB vs 20 MB). The module is built from llvm-stress-14 functions (one seed each), cached
// in ~/.cache/tsopt/bench. Run: `npm run build && node dist/bench/ir-roundtrip.js [--mb=20]`.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseModule, printModule } from '../ir';

const cacheDir = path.join(process.env.TSOPT_CACHE ?? path.join(os.homedir(), '.cache', 'tsopt'), 'bench');

/** `megabytes` of IR: llvm-stress functions of ~5000 instructions with distinct seeds. */
function buildModule(megabytes: number): string {
  const file = path.join(cacheDir, `ir-stress-${megabytes}mb.ll`);
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8');
  fs.mkdirSync(cacheDir, { recursive: true });
  const parts: string[] = ['source_filename = "ir-roundtrip-bench"\n'];
  let size = 0;
  for (let seed = 1; size < megabytes * 1e6; seed++) {
    const r = spawnSync('llvm-stress-14', [`-seed=${seed}`, '-size=5000', '-o', '-'], { maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`llvm-stress-14 failed: ${r.stderr}`);
    const text = r.stdout.toString();
    // keep the function definitions (each seed names its function @autogen_SD<seed>)
    const body = text.slice(text.indexOf('\ndefine ') + 1);
    parts.push(body);
    size += body.length;
  }
  const all = parts.join('\n');
  fs.writeFileSync(file, all);
  return all;
}

/** The first functions of `text` adding up to about `bytes`. */
function prefixOfFunctions(text: string, bytes: number): string {
  let end = text.indexOf('\ndefine ', bytes);
  if (end < 0) end = text.length;
  return text.slice(0, end + 1);
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

interface Timing {
  mb: number;
  parseS: number;
  printS: number;
}

/** Best of `runs` (CPU time, so other load on the machine counts less). */
function time(text: string, runs: number): Timing {
  let parse = Infinity;
  let print = Infinity;
  for (let k = 0; k < runs; k++) {
    const t0 = cpuMs();
    const m = parseModule(text, 'bench.ll');
    const t1 = cpuMs();
    const out = printModule(m);
    const t2 = cpuMs();
    if (out.length < text.length / 2) throw new Error('printer lost text');
    parse = Math.min(parse, t1 - t0);
    print = Math.min(print, t2 - t1);
  }
  return { mb: text.length / 1e6, parseS: parse / 1000, printS: print / 1000 };
}

function main(): void {
  const mbArg = process.argv.find((a) => a.startsWith('--mb='));
  const mb = mbArg ? Number(mbArg.slice(5)) : 20;
  const full = buildModule(mb);
  const quarter = prefixOfFunctions(full, full.length / 4);
  // warm up the JIT on a small piece, then measure
  time(prefixOfFunctions(full, 1e6), 2);
  const small = time(quarter, 3);
  const big = time(full, 2);
  // LLVM accepts what we print for the whole module, and printing is stable
  const printed = printModule(parseModule(full, 'bench.ll'));
  const stable = printModule(parseModule(printed, 'printed.ll')) === printed;
  const as = spawnSync('llvm-as-14', ['-', '-o', '/dev/null'], { input: printed, maxBuffer: 1 << 30 });
  const line = (t: Timing): string =>
    `${t.mb.toFixed(1)} MB: parse ${t.parseS.toFixed(2)} s (${(t.mb / t.parseS).toFixed(1)} MB/s), ` +
    `print ${t.printS.toFixed(2)} s (${(t.mb / t.printS).toFixed(1)} MB/s), ` +
    `round trip ${(t.parseS + t.printS).toFixed(2)} s`;
  console.log(line(small));
  console.log(line(big));
  const ratio = (big.parseS + big.printS) / (small.parseS + small.printS);
  const sizeRatio = big.mb / small.mb;
  console.log(`scaling: ${sizeRatio.toFixed(2)}x the text took ${ratio.toFixed(2)}x the time (linear would be ${sizeRatio.toFixed(2)}x)`);
  console.log(`printed module stable: ${stable}; llvm-as-14 accepts it: ${as.status === 0}`);
  if (!stable || as.status !== 0 || ratio > sizeRatio * 1.6) process.exitCode = 1;
}

main();

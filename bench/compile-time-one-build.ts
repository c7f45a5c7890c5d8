// PolyBench as one build (bench/compile-time.ts `--polybench-one-build`): the kernels compiled by
// one `make -j1` over a Makefile, as a project of several files is, so that tscc's compile server
// serves them all (started by the first compile, its pool process loaded once). Each kernel is
// charged what its compile cost: the compiler process's CPU (from `/usr/bin/time`) and, through
// the server, the pool process's CPU on that request (the server's request log,
// TSOPT_SERVER_REQUEST_LOG, LLVM tools included). What no request holds (the server's start, its
// pool process's start and the idle time between requests) is a row of its own, in the total.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RequestRecord } from '../cli/tsopt-server-protocol';

/** The row of a build's files that holds the server's CPU outside every request. */
export const SERVER_OVERHEAD = '(server: start and idle)';

/** The kernels of a PolyBench/C 4.2.1 checkout, as paths relative to it, in its own order. */
export function polybenchList(dir: string): string[] {
  return fs.readFileSync(path.join(dir, 'utilities', 'benchmark_list'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l !== '');
}

/** PolyBench's flags for one kernel's `-c` (the bench's run-time builds use the same defines). */
export function polybenchFlags(dir: string, src: string, dataset: string): string {
  return `-O3 -march=native -I${path.join(dir, 'utilities')} -I${path.dirname(src)} -D${dataset}_DATASET -DPOLYBENCH_TIME`;
}

/** A Makefile that compiles each kernel to `<name>.o` in the build's directory, `all` being every object. */
export function polybenchMakefile(dir: string, dataset: string, kernels: readonly string[]): string {
  const rules = kernels.map((rel) => {
    const src = path.join(dir, rel);
    const name = path.basename(rel, '.c');
    return `${name}.o: ${src}\n\t$(CC) ${polybenchFlags(dir, src, dataset)} -c $< -o $@\n`;
  });
  return `all: ${kernels.map((rel) => `${path.basename(rel, '.c')}.o`).join(' ')}\n\n${rules.join('\n')}`;
}

/** The request log's CPU seconds by source file name (requests for one file summed). */
export function requestCpuByFile(log: string): Map<string, number> {
  const files = new Map<string, number>();
  if (!fs.existsSync(log)) return files;
  for (const line of fs.readFileSync(log, 'utf8').split('\n')) {
    if (line === '') continue;
    const r = JSON.parse(line) as RequestRecord;
    const key = path.basename(r.source);
    files.set(key, (files.get(key) ?? 0) + r.cpuMs / 1000);
  }
  return files;
}

/**
 * `files` (each compile's client CPU by file) with the server's CPU added: each request's to its
 * file, the rest of the server's total (`serverS`) to SERVER_OVERHEAD.
 */
export function chargeServer(files: Map<string, number>, requestLog: string, serverS: number): Map<string, number> {
  const out = new Map(files);
  let requests = 0;
  for (const [file, s] of requestCpuByFile(requestLog)) {
    out.set(file, (out.get(file) ?? 0) + s);
    requests += s;
  }
  out.set(SERVER_OVERHEAD, serverS - requests);
  return out;
}

const fmt = (s: number | undefined): string => (s !== undefined && Number.isFinite(s) ? s.toFixed(2) : 'n/a');

/**
 * The one build's table: each kernel's CPU by compiler, tscc's over clang's, the server's share
 * outside requests, and issue 16's two PolyBench questions (total against Polly's, kernels more
 * than 1 s over clang's).
 */
export function printOneBuild(files: Record<string, Record<string, number>>, totals: Record<string, number>, names: readonly string[]): void {
  const tsccNames = names.filter((n) => n.startsWith('tscc'));
  console.log(`\n## PolyBench as one build (make -j1): CPU seconds per kernel (user + sys; tscc-server: the client's compile plus the server's CPU on its request)\n`);
  console.log(`| kernel | ${names.join(' | ')} | ${tsccNames.map((n) => `${n} − clang`).join(' | ')} |`);
  console.log(`| --- | ${names.map(() => '---').join(' | ')} | ${tsccNames.map(() => '---').join(' | ')} |`);
  const kernels = Object.keys(files).filter((f) => f.endsWith('.c')).sort();
  for (const k of kernels) {
    const by = files[k]!;
    console.log(`| ${k.replace(/\.c$/, '')} | ${names.map((n) => fmt(by[n])).join(' | ')} | ${tsccNames.map((n) => `${((by[n] ?? NaN) - (by.clang ?? NaN)).toFixed(2)}`).join(' | ')} |`);
  }
  const rest = Object.keys(files).filter((f) => !f.endsWith('.c')).sort();
  for (const r of rest) console.log(`| ${r} | ${names.map((n) => fmt(files[r]![n])).join(' | ')} | ${tsccNames.map(() => '').join(' | ')} |`);
  console.log(`| total (the build's CPU) | ${names.map((n) => fmt(totals[n])).join(' | ')} | ${tsccNames.map((n) => `${((totals[n] ?? NaN) - (totals.clang ?? NaN)).toFixed(2)}`).join(' | ')} |`);
  for (const n of tsccNames) {
    const over = kernels.map((k) => ({ k, over: (files[k]![n] ?? NaN) - (files[k]!.clang ?? NaN) })).filter((o) => !(o.over <= 1));
    const polly = totals.polly === undefined ? '' : `total ${fmt(totals[n])} s against Polly's ${fmt(totals.polly)} s (${totals[n]! <= totals.polly ? 'at most' : 'over'}); `;
    console.log(`\n${n}: ${polly}kernels more than 1 s over clang's: ${over.length === 0 ? 'none' : over.map((o) => `${o.k.replace(/\.c$/, '')} +${o.over.toFixed(2)}`).join(', ')}`);
  }
}

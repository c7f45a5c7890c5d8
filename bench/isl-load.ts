// How long loading isl-wasm takes in a fresh process: require('isl-wasm'),
// compile and instantiate the wasm module, make a Ctx and parse one set.
// Budget: under 150 ms. Also: a second Ctx in the same process
// reuses the compiled module.
//
//   node dist/bench/isl-load.js [runs]
import { spawnSync } from 'node:child_process';

const CHILD = `
const c0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
const isl = require('isl-wasm');
const t1 = process.hrtime.bigint();
const ctx = new isl.Ctx();
ctx.set('{ [i] : 0 <= i < 10 }');
const t2 = process.hrtime.bigint();
const again = new isl.Ctx();
again.set('{ [i] : 0 <= i < 10 }');
const t3 = process.hrtime.bigint();
const cpu = process.cpuUsage(c0);
console.log(JSON.stringify({ requireMs: Number(t1 - t0) / 1e6, firstCtxMs: Number(t2 - t1) / 1e6, secondCtxMs: Number(t3 - t2) / 1e6, cpuMs: (cpu.user + cpu.system) / 1000 }));
`;

interface Sample { requireMs: number; firstCtxMs: number; secondCtxMs: number; cpuMs: number }

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function main(): void {
  const runs = Number(process.argv[2] ?? 7);
  const samples: Sample[] = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, ['-e', CHILD], { encoding: 'utf8', cwd: process.cwd() });
    if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
    samples.push(JSON.parse(r.stdout) as Sample);
  }
  const load = samples.map((s) => s.requireMs + s.firstCtxMs);
  console.log(`isl-wasm load (require + compile + instantiate + first Ctx + parse), median of ${runs} fresh processes:`);
  console.log(`  require('isl-wasm'): ${median(samples.map((s) => s.requireMs)).toFixed(1)} ms`);
  console.log(`  first Ctx + parse:   ${median(samples.map((s) => s.firstCtxMs)).toFixed(1)} ms`);
  console.log(`  total:               ${median(load).toFixed(1)} ms wall (budget 150 ms), ${median(samples.map((s) => s.cpuMs)).toFixed(1)} ms CPU`);
  console.log(`  (wall time includes waiting for a core; on a busy machine compare the CPU time)`);
  console.log(`  second Ctx + parse:  ${median(samples.map((s) => s.secondCtxMs)).toFixed(3)} ms (module reused)`);
}

main();

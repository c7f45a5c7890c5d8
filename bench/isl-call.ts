// Overhead of calling isl through the TypeScript API, compared with calling
// the raw wasm export directly. Budget: well under a microsecond.
//
//   node dist/bench/isl-call.js [iterations]
import { Ctx, DimType } from 'isl-wasm';

function time(label: string, iterations: number, body: () => void): number {
  for (let i = 0; i < Math.min(iterations, 100_000); i++) body(); // warm up the JIT
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) body();
  const ns = Number(process.hrtime.bigint() - t0) / iterations;
  console.log(`  ${label.padEnd(52)} ${ns.toFixed(1).padStart(8)} ns/call`);
  return ns;
}

function main(): void {
  const iterations = Number(process.argv[2] ?? 2_000_000);
  const ctx = new Ctx();
  const set = ctx.set('[n] -> { [i, j] : 0 <= i < n and 0 <= j <= i }');
  const raw = ctx.m;
  const ptr = set.ptr;
  let sink = 0;
  console.log(`isl-wasm call overhead (${iterations} calls each):`);
  const rawDim = time('raw wasm export  m._isl_set_dim(p, isl_dim_set)', iterations, () => { sink += raw._isl_set_dim(ptr, DimType.set); });
  const apiDim = time('API              set.dim(DimType.set)', iterations, () => { sink += set.dim(DimType.set); });
  const rawBool = time('raw wasm export  m._isl_set_is_wrapping(p)', iterations, () => { sink += raw._isl_set_is_wrapping(ptr); });
  const apiBool = time('API              set.isWrapping()', iterations, () => { sink += set.isWrapping() ? 1 : 0; });
  const n = Math.floor(iterations / 10);
  time('API, new object  set.copy().dispose()', n, () => { set.copy().dispose(); });
  time('API, in a scope  ctx.scope(() => set.copy())', n, () => { ctx.scope(() => { set.copy(); }); });
  console.log(`  overhead per call: ${(apiDim - rawDim).toFixed(1)} ns (isl_size), ${(apiBool - rawBool).toFixed(1)} ns (isl_bool)`);
  if (sink === -1) console.log(sink);
  ctx.dispose();
}

main();

// The versioned fast path against clang -O3 and Polly, from one interleaved run.
//   npm run build && node dist/bench/versioning.js [rounds=5] [kernel=args ...]
// Builds each kernel three ways (clang-14 -O3; the tsopt pipe with --passes=versioning;
// clang-14 -O3 -mllvm -polly), then runs clang, tsopt, polly in turn, `rounds` times,
// and prints the median wall time of each and the ratios.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
const kernels = path.join(root, 'test', 'kernels');
const tsopt = path.join(root, 'bin', 'tsopt.js');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tsopt-bench-versioning-'));
const rounds = Number(process.argv[2] ?? 5);
const picked = process.argv.slice(3).length > 0 ? process.argv.slice(3) : ['gemm=500,550,600', 'syrk=600,500', 'syr2k=600,500'];

function build(kernel: string): Record<string, string> {
  const src = path.join(kernels, `${kernel}.c`);
  const exe = (v: string) => path.join(work, `${kernel}-${v}`);
  execFileSync('clang-14', ['-O3', `-I${kernels}`, src, '-o', exe('clang'), '-lm']);
  execFileSync('clang-14', ['-O3', '-mllvm', '-polly', `-I${kernels}`, src, '-o', exe('polly'), '-lm']);
  const ir = execFileSync('clang-14', ['-O3', '-fno-vectorize', '-fno-slp-vectorize', `-I${kernels}`, '-emit-llvm', '-c', src, '-o', '-']);
  const bc = execFileSync('node', [tsopt, '--passes=versioning'], { input: ir, maxBuffer: 1 << 30 });
  const obj = path.join(work, `${kernel}.o`);
  execFileSync('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], { input: bc });
  execFileSync('clang-14', [obj, '-o', exe('tsopt'), '-lm']);
  return { clang: exe('clang'), tsopt: exe('tsopt'), polly: exe('polly') };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const spec of picked) {
  const [kernel, args = ''] = spec.split('=');
  const exes = build(kernel!);
  const times: Record<string, number[]> = { clang: [], tsopt: [], polly: [] };
  for (let r = 0; r < rounds; r++) {
    for (const v of ['clang', 'tsopt', 'polly']) {
      const t0 = process.hrtime.bigint();
      const run = spawnSync(exes[v]!, args.split(',').filter(Boolean));
      if (run.status !== 0) throw new Error(`${kernel} (${v}) failed`);
      times[v]!.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  const [c, t, p] = ['clang', 'tsopt', 'polly'].map((v) => median(times[v]!));
  console.log(`${kernel} ${args}: median ms clang=${c!.toFixed(0)} tsopt=${t!.toFixed(0)} polly=${p!.toFixed(0)}  tsopt/clang=${(t! / c!).toFixed(2)} tsopt/polly=${(t! / p!).toFixed(2)}`);
}
fs.rmSync(work, { recursive: true, force: true });

// The module budget at scale: a generated module of thousands of small loop functions
// (about 20 MB of -O3 IR text), run through tsopt with its default options, measured for CPU time
// and peak memory, with what the report says the module budget left untouched.
//
//   npm run build && node dist/bench/big-module.js [--functions=4000] [--keep] [-- TSOPT_FLAGS...]
//
// The kernels are C templates (vector updates, matrix-vector products, stencils, transposes,
// triangular loops, gathers and histograms whose accesses are not affine, strided updates whose
// accesses are over-approximated), each function with its
// own constants, compiled once by clang-14 -O3 -fno-vectorize -fno-slp-vectorize into one module.
// Not a test: it takes minutes.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const TEMPLATES: readonly ((k: number) => string)[] = [
  (k) => `void saxpy_${k}(int n, double a, const double *x, double *y) {
  for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i] + ${k}.0;
}`,
  (k) => `void matvec_${k}(int n, int m, double A[n][m], const double *x, double *y) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) y[i] += A[i][j] * x[j] * ${k}.0;
}`,
  (k) => `void stencil_${k}(int n, const double *a, double *b) {
  for (int i = 1; i < n - 1; i++) b[i] = (a[i - 1] + a[i] + a[i + 1]) * ${k}.5;
}`,
  (k) => `void transpose_${k}(int n, int m, float *a, const float *b) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) a[i * m + j] = b[j * n + i] + ${k}.0f;
}`,
  (k) => `void lower_${k}(int n, double *L) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) L[i * n + j] *= ${k}.25;
}`,
  (k) => `void gather_${k}(int n, const int *idx, const double *x, double *y) {
  for (int i = 0; i < n; i++) y[i] = x[idx[i]] * ${k}.0;
}`,
  (k) => `void histogram_${k}(int n, const unsigned *v, int *h) {
  for (int i = 0; i < n; i++) h[(v[i] * ${k}u) & 255] += 1;
}`,
  (k) => `static double G_${k}[64][64], H_${k}[64][64];
void smooth_${k}(void) {
  for (int i = 1; i < 63; i++)
    for (int j = 1; j < 63; j++) H_${k}[i][j] = (G_${k}[i - 1][j] + G_${k}[i + 1][j] + G_${k}[i][j - 1] + G_${k}[i][j + 1]) * ${k}.0;
}
double *smooth_out_${k}(void) { return &H_${k}[0][0]; }`,
  // Strides that are products of a counter and a parameter: over-approximated, so never versioned.
  (k) => `void strided_${k}(int n, int m, int s, int t, double *a, const double *b) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) a[i * s + j * t] += b[j] * ${k}.0;
}`,
];

interface Args {
  functions: number;
  keep: boolean;
  tsoptFlags: string[];
}

function parseArgs(argv: readonly string[]): Args {
  const dash = argv.indexOf('--');
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const functions = Number(own.find((a) => a.startsWith('--functions='))?.slice('--functions='.length) ?? 4000);
  return { functions, keep: own.includes('--keep'), tsoptFlags: dash < 0 ? [] : argv.slice(dash + 1) };
}

function run(cmd: string, args: readonly string[]): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} failed (${r.status ?? r.signal}): ${r.stderr}`);
}

interface ScopEntry {
  versioned?: boolean;
  notVersioned?: string;
  islOperations?: number;
}
interface Report {
  functions: { name: string; scops: ScopEntry[]; rejected: unknown[] }[];
  pipeline: { moduleBudget?: { operationsLimit: number; operationsSpent: number; transformOperationsLimit: number; transformOperations: number; exhaustedBy?: string; untouchedScops: number; untouchedFunctions: number } };
}

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsopt-big-module-'));
  const source = path.join(dir, 'big.c');
  const ir = path.join(dir, 'big.ll');
  const out = path.join(dir, 'big.out.bc');
  const report = path.join(dir, 'report.json');
  try {
    const body = Array.from({ length: args.functions }, (_, k) => TEMPLATES[k % TEMPLATES.length](k)).join('\n');
    fs.writeFileSync(source, `${body}\n`);
    run('clang-14', ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-emit-llvm', '-S', source, '-o', ir]);
    const mb = fs.statSync(ir).size / 1e6;
    const defined = (fs.readFileSync(ir, 'utf8').match(/^define /gm) ?? []).length;
    process.stdout.write(`module: ${mb.toFixed(1)} MB of IR text, ${defined} functions (${args.functions} kernels of ${TEMPLATES.length} templates)\n`);
    const tsopt = path.join(__dirname, '..', '..', 'bin', 'tsopt.js');
    const timed = spawnSync('/usr/bin/time', ['-f', '%U %S %M %e', process.execPath, tsopt, ir, '-o', out, `--report=${report}`, ...args.tsoptFlags], {
      encoding: 'utf8', maxBuffer: 1 << 28,
    });
    const lines = timed.stderr.trim().split('\n');
    const [user, sys, maxKb, wall] = lines[lines.length - 1].split(' ').map(Number);
    process.stdout.write(`tsopt ${args.tsoptFlags.join(' ') || '(default options)'}: exit ${timed.status}, CPU ${(user + sys).toFixed(1)} s (user ${user} s, sys ${sys} s), wall ${wall} s, peak RSS ${(maxKb / 1024).toFixed(0)} MB, output ${fs.existsSync(out) ? `${(fs.statSync(out).size / 1e6).toFixed(1)} MB` : 'missing'}\n`);
    if (timed.status !== 0) process.stdout.write(lines.slice(0, -1).join('\n') + '\n');
    if (!fs.existsSync(report)) return;
    const r = JSON.parse(fs.readFileSync(report, 'utf8')) as Report;
    const scops = r.functions.flatMap((f) => f.scops);
    const versioned = scops.filter((s) => s.versioned === true).length;
    const why = new Map<string, number>();
    for (const s of scops) {
      if (s.versioned !== false || !s.notVersioned) continue;
      const key = s.notVersioned.replace(/\d+/g, 'N').slice(0, 100);
      why.set(key, (why.get(key) ?? 0) + 1);
    }
    const ops = scops.reduce((n, s) => n + (s.islOperations ?? 0), 0);
    process.stdout.write(`report: ${scops.length} SCoPs in ${r.functions.filter((f) => f.scops.length > 0).length} functions, ${versioned} versioned, ${scops.length - versioned} not; ${r.functions.reduce((n, f) => n + f.rejected.length, 0)} regions rejected; ${ops} isl operations in the SCoPs' reports\n`);
    for (const [k, n] of [...why].sort((a, b) => b[1] - a[1]).slice(0, 8)) process.stdout.write(`  not versioned ${n}x: ${k}\n`);
    process.stdout.write(`moduleBudget: ${JSON.stringify(r.pipeline.moduleBudget)}\n`);
    const untouched = r.functions.flatMap((f) => f.rejected as { detail: string }[]).filter((x) => x.detail.includes('module budget ran out')).length;
    process.stdout.write(`rejected regions saying the module budget left them as they were (not modelled): ${untouched}\n`);
    const untransformed = r.functions.filter((f) => f.scops.some((s) => s.notVersioned?.includes('module budget ran out')));
    process.stdout.write(`SCoPs the module budget left as they were after modelling them (not transformed): ${untransformed.reduce((n, f) => n + f.scops.filter((s) => s.notVersioned?.includes('module budget ran out')).length, 0)} in ${untransformed.length} functions\n`);
  } finally {
    if (args.keep) process.stdout.write(`kept ${dir}\n`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}

main();

// uBLAS correlation as the bench builds it (issue 22), through the bare pipe:
//   clang++-14 -O3 -march=native -DNDEBUG -DBOOST_UBLAS_NDEBUG -DUBLAS_DUMP -fno-vectorize -fno-slp-vectorize
//     (unrolling deferred, as tscc does) | tsopt --verify-each | llc-14 -O3 | clang++-14
// Every SCoP of main gets a fast path, the first one too, whose entry follows the invoke of
// `operator new` for the matrix storage (a funnel block takes that edge), and the program prints
// what clang++ -O3's build prints. (Without -march=native, -O3 leaves the corr nest's outer loop an
// unsigned exit test, and its inner loops are a SCoP with that counter as a varying parameter.)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compileToIr, repoRoot, run, runOk, tempDir } from '../support/tools';

const work = tempDir('tsopt-ublas-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface Report { functions: { name: string; scops: { location: string; versioned?: boolean; notVersioned?: string }[] }[] }

test('uBLAS correlation: every SCoP of main versioned, output as clang++ -O3', () => {
  const source = path.join(repoRoot, 'bench', 'ublas', 'correlation.cpp');
  const defines = ['-march=native', '-DNDEBUG', '-DBOOST_UBLAS_NDEBUG', '-DUBLAS_DUMP'];
  const bitcode = compileToIr(source, ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false', ...defines]);
  const reportFile = path.join(work, 'report.json');
  const optimized = runOk('node', [path.join(repoRoot, 'bin', 'tsopt.js'), '--verify-each', `--report=${reportFile}`], bitcode);
  const report = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as Report;
  const scops = report.functions.find((f) => f.name === 'main')!.scops;
  expect(scops.length).toBeGreaterThanOrEqual(4);
  expect(scops.filter((s) => s.versioned !== true).map((s) => `${s.location}: ${s.notVersioned}`)).toEqual([]);
  const obj = path.join(work, 'correlation.o');
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], optimized);
  const exe = path.join(work, 'correlation');
  runOk('clang++-14', [obj, '-o', exe]);
  const reference = path.join(work, 'correlation.ref');
  runOk('clang++-14', ['-O3', ...defines, source, '-o', reference]);
  const ours = run(exe, ['60']);
  expect(ours.status).toBe(0);
  expect(ours.stdout.toString()).toBe(run(reference, ['60']).stdout.toString());
}, 180_000);

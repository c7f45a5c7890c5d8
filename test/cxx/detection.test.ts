// SCoP detection on C++ library code (issue 22): uBLAS correlation as the bench builds it and as
// a checked build (bounds-checking accessors that print and throw), and the errno rule for math
// calls (passes/analysis/math-calls.ts).
import * as path from 'node:path';
import { compileToIr, repoRoot, runOk } from '../support/tools';

/** `print<scop-detection>` lines of one function (tsopt prints them on stderr). */
function detectionText(bitcode: Buffer, fn: string, flags = ''): string[] {
  const r = runOk('sh', ['-c', `node ${path.join(repoRoot, 'bin', 'tsopt.js')} '--passes=print<scop-detection>' ${flags} --no-post -o /dev/null 2>&1`], bitcode);
  const out: string[] = [];
  let inside = false;
  for (const line of r.toString().split('\n')) {
    if (line.startsWith('scop detection for @')) inside = line === `scop detection for @${fn}:`;
    else if (inside && line.trim()) out.push(line.trim());
  }
  return out;
}

const correlation = path.join(repoRoot, 'bench', 'ublas', 'correlation.cpp');

// What tscc hands tsopt (bench/README.md): vectorizers and partial unrolling deferred.
const tsccFlags = ['-O3', '-fno-vectorize', '-fno-slp-vectorize', '-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false'];

test('uBLAS correlation as the bench builds it (-DNDEBUG -DBOOST_UBLAS_NDEBUG): every loop of main in a SCoP', () => {
  const bc = compileToIr(correlation, [...tsccFlags, '-march=native', '-DNDEBUG', '-DBOOST_UBLAS_NDEBUG']);
  const lines = detectionText(bc, 'main');
  expect(lines.filter((l) => l.startsWith('reject'))).toEqual([]);
  // The kernel's triangular nest (k innermost, j from i + 1) is in a depth-3 SCoP, with the mean,
  // stddev and normalization loops before it: the size n, 60 or strtol's value checked to lie in
  // [1, 20000], is known non-negative there (a PHI's range), so its unsigned loop guards are affine.
  expect(lines.some((l) => /^scop .* depth 3, loops 9, statements 12/.test(l))).toBe(true);
}, 120_000);

test('uBLAS correlation, checked build: the accessors are inlined, and no loop of main is rejected for a call or for its CFG', () => {
  const bc = compileToIr(correlation, tsccFlags);
  // -O3 leaves the checked accessors out of line (they print and throw): tsopt inlines them
  // (passes/checked-accessors.ts); without that, each call keeps its loop out.
  const kept = detectionText(bc, 'main', '--inline-checked-accessors=false');
  expect(kept.some((l) => /function-call .*invoke of @_ZN5boost7numeric5ublas15unbounded_arrayIdSaIdEEixEm \(may throw\)/.test(l))).toBe(true);
  const lines = detectionText(bc, 'main');
  expect(lines.filter((l) => /reject (function-call|complex-cfg)/.test(l))).toEqual([]);
  // What is left: basic_row_major's check of i * size2 + j against the array's size, a product of
  // a counter and a parameter (non-affine; Polly's model cannot take it either).
  expect(lines.some((l) => /reject non-affine-loop-bound at main:%_ZN5boost7numeric5ublas15basic_row_majorImlE7elementEmmmm\.exit[0-9]*: non-affine branch condition: .*\*/.test(l))).toBe(true);
}, 120_000);

test('math calls: a SCoP whose calls may store two errno values is refused; sqrt, exp2 and fabs alone are statements', () => {
  const bc = compileToIr(path.join(__dirname, 'fixtures', 'mixed-errno.cpp'), ['-O3', '-fno-vectorize', '-fno-slp-vectorize']);
  const mixed = detectionText(bc, '_Z5mixedPdPKdl');
  expect(mixed.some((l) => l.startsWith('scop '))).toBe(false);
  expect(mixed.some((l) => /reject function-call .*math calls \(@sqrt, @pow\) may set errno to EDOM or ERANGE/.test(l))).toBe(true);
  const roots = detectionText(bc, '_Z10roots_onlyPdPKdl');
  expect(roots.filter((l) => l.startsWith('scop '))).toHaveLength(1);
  expect(roots.filter((l) => l.startsWith('reject'))).toEqual([]);
}, 120_000);

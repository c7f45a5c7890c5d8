// The plain model's run-time check is made before the probes that choose which model a SCoP's
// fast path comes from (DeLICM's for time tiling, the row jam, tiling or an interchange): where
// isl gives up on that check, the SCoP keeps no fast path from the plain model, and the probes'
// isl work (DeLICM, the exact dataflow, isl's scheduler) is not spent.
//
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize -emit-llvm lu.c | tsopt --passes=versioning --codegen-max-operations=N --report=r.json
//
// Assertions are on the report's steps and isl operation counts, never on time.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compileToIr, kernelsDir, repoRoot, run, tempDir } from '../support/tools';

const tsopt = path.join(repoRoot, 'bin', 'tsopt.js');
const work = tempDir('tsopt-check-first-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface ScopFields {
  versioned?: boolean;
  notVersioned?: string;
  fastPathFrom?: string;
  islOperations?: number;
  islOperationsBySteps?: Record<string, number>;
}

/** Every SCoP of lu.c's functions, kernel_lu's first. */
function luScops(args: readonly string[]): ScopFields[] {
  const bc = path.join(work, 'lu.bc');
  if (!fs.existsSync(bc)) fs.writeFileSync(bc, compileToIr(path.join(kernelsDir, 'lu.c'), ['-O3', '-fno-vectorize', '-fno-slp-vectorize', `-I${kernelsDir}`]));
  const report = path.join(work, `r-${args.join('_').replace(/[^\w=-]/g, '')}.json`);
  const r = run('node', [tsopt, '--passes=versioning', '--no-post', '-S', `--report=${report}`, ...args, bc, '-o', path.join(work, 'out.ll')]);
  if (r.status !== 0) throw new Error(`tsopt failed (${r.status}): ${r.stderr}`);
  const parsed = JSON.parse(fs.readFileSync(report, 'utf8')) as { functions: { name: string; scops: ScopFields[] }[] };
  const kernel = parsed.functions.find((f) => f.name === 'kernel_lu')?.scops ?? [];
  if (kernel.length === 0) throw new Error('kernel_lu has no SCoP in the report');
  return [...kernel, ...parsed.functions.filter((f) => f.name !== 'kernel_lu').flatMap((f) => f.scops)];
}

function kernelLu(args: readonly string[]): ScopFields {
  return luScops(args)[0]!;
}

describe('the plain model\'s check before the probes', () => {
  test('lu: a check past its quota spends nothing on DeLICM, the dataflow or the scheduler', () => {
    // By default kernel_lu's fast path comes from DeLICM's model, chosen by probes that run DeLICM,
    // the exact dataflow and isl's scheduler (millions of operations).
    const free = kernelLu([]);
    expect(free).toMatchObject({ versioned: true, fastPathFrom: 'delicm' });
    expect(free.islOperationsBySteps!['delicm']).toBeGreaterThan(100_000);
    expect(free.islOperationsBySteps!['dataflow']).toBeGreaterThan(0);

    // A quota the plain model's check parts run out of: the SCoP keeps no fast path, as it did when
    // the probes ran first, and its steps end at the check.
    const tight = kernelLu(['--codegen-max-operations=5']);
    expect(tight).toMatchObject({ versioned: false, notVersioned: 'isl exceeded its quota of 5 operations for the check and the AST (--codegen-max-operations)' });
    expect(Object.keys(tight.islOperationsBySteps!).sort()).toEqual(['check and AST', 'delinearization', 'dependences', 'model']);
    expect(tight.islOperationsBySteps!['check and AST']).toBeLessThanOrEqual(5 + 100);
    expect(tight.islOperations!).toBeLessThan(free.islOperations! - free.islOperationsBySteps!['delicm']!);
  }, 300_000);

  test('lu: parts made before the AST leave it only the rest of the quota', () => {
    // Each SCoP's parts fit in 1000 operations and its AST does not: the step spends the quota once,
    // the parts' share included, as when both were made in one run (not the parts' 15-275 more).
    const scops = luScops(['--codegen-max-operations=1000']);
    expect(scops.length).toBe(3);
    for (const s of scops) {
      expect(s).toMatchObject({ versioned: false, notVersioned: 'isl exceeded its quota of 1000 operations for the check and the AST (--codegen-max-operations)' });
      expect(s.islOperationsBySteps!['check and AST']).toBe(1000);
    }
  }, 300_000);
});

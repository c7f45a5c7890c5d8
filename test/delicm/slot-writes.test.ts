// A scalar DeLICM leaves in its stack slot: the fast path stores the slot in every instance of
// the writing statement, dead instances (overwritten before any read) included, so DeLICM's model
// keeps those writes whole and a schedule orders them all. Trimmed to their live instances, isl's
// tiled schedule of a model mapping only the interchanged nest's scalars ran the first nest's
// `w = A[i][j]` for every j ahead of the j loop that reads it, and the program printed wrong
// values (PolyBench ludcmp's VLA build at MEDIUM: x[0] 5.01 instead of 4.00).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tsoptAsync } from '../cli/tsopt-binary';
import { compileToIr, runOk, tempDir } from '../support/tools';
import type { ScopAccess, ScopModel } from '../../polyhedral/model';
import { carriedByDepth, delicmKernel } from './support';

const work = tempDir('tsopt-delicm-slots-');
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** Each access of `model` to a scalar left in its slot, with the same access of `original`. */
function slotAccesses(original: ScopModel, model: ScopModel): { access: ScopAccess; before: ScopAccess }[] {
  return model.statements.flatMap((s) => {
    const o = original.statements.find((t) => t.name === s.name)!;
    return s.accesses.filter((a) => a.array.kind !== 'array').map((access) => ({
      access,
      before: o.accesses.find((b) => b.array === access.array && b.kind === access.kind && b.scalar?.value === access.scalar?.value)!,
    }));
  });
}

test("DeLICM's model (every scalar eligible: main's path) keeps a slot's writes whole: covariance's exit PHI is written in every iteration", () => {
  // main's SCoP that sums each column into a PHI the code after it reads: the PHI escapes, so it
  // is never mapped, and only its last iteration's write is live.
  const k = delicmKernel('covariance', { function: 'main' });
  try {
    const changed = k.results.filter((r) => r.model !== r.original);
    expect(changed.length).toBeGreaterThan(0);
    for (const r of changed) {
      for (const { access, before } of slotAccesses(r.original, r.model)) expect([access.array.name, access.relation.isEqual(before.relation)]).toEqual([access.array.name, true]);
    }
    // The loop writing the escaping PHI carries its WAW: no schedule may run an earlier write last.
    expect(changed.some((r) => (carriedByDepth(r.model)[1] ?? []).includes('WAW (scalar)'))).toBe(true);
  } finally {
    k.dispose();
  }
});

interface ScopFields {
  fastPathFrom?: string;
  delicmMappedOnly?: string[];
  schedule?: { taken?: boolean; tiledBands?: number };
}

// tscc's front end (cli/tscc.ts): vectorizers and runtime unrolling left to the post pipeline.
const FRONT_END = ['-O3', '-march=native', '-fno-vectorize', '-fno-slp-vectorize', '-mllvm', '-unroll-runtime=false', '-mllvm', '-unroll-allow-partial=false'];

// fixtures/lu-solve.c: ludcmp's computation in a function of its own, VLA build (its flat build
// went wrong the same way through tscc, but its unbounded scheduling costs minutes of CPU).
describe.each([['vla', ['-DVLA']]] as const)('lu-solve (%s)', (tag, defines) => {
  test("DeLICM maps only the interchanged nest's scalars, isl tiles the SCoP, and the program prints what clang -O3 prints", async () => {
    const source = path.join(__dirname, 'fixtures', 'lu-solve.c');
    const out = path.join(work, `lu-solve-${tag}.report`);
    // The kernel's sizes are parameters: isl's scheduler needs more than the default quotas.
    // Without the right-looking order, which takes this nest from DeLICM's model with every scalar mapped (test below).
    const r = await tsoptAsync(['--verify-each', `--report=${out}`, '--schedule-max-operations=0', '--scop-max-operations=0', '--right-looking=false'],
      compileToIr(source, [...FRONT_END, ...defines]));
    expect(r.stderr.toString()).toBe('');
    expect(r.status).toBe(0);
    const report = JSON.parse(fs.readFileSync(out, 'utf8')) as { functions: { name: string; scops: ScopFields[] }[] };
    const [s] = report.functions.find((f) => f.name === 'kernel_lu_solve')!.scops;
    expect(s).toMatchObject({ fastPathFrom: 'delicm', delicmMappedOnly: expect.any(Array), schedule: { taken: true } });
    expect(s!.schedule!.tiledBands).toBeGreaterThan(0);

    const obj = path.join(work, `lu-solve-${tag}.o`);
    runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], r.stdout);
    const exe = path.join(work, `lu-solve-${tag}`);
    runOk('clang-14', [obj, '-o', exe, '-lm']);
    const reference = path.join(work, `lu-solve-${tag}.ref`);
    runOk('clang-14', ['-O3', '-march=native', ...defines, source, '-o', reference, '-lm']);
    for (const n of ['1', '2', '3', '40', '41']) expect([n, runOk(exe, [n]).toString()]).toEqual([n, runOk(reference, [n]).toString()]);
  }, 1_800_000); // isl's scheduler without a quota: minutes at load 35 on 2 cores
});

// The same kernel with the right-looking order (transform/right-looking.ts): DeLICM's model with
// every scalar mapped, the reduction loop outermost, within the default quotas.
test('lu-solve (vla): the right-looking order from DeLICM\'s model with every scalar mapped, and the program prints what clang -O3 prints', async () => {
  const source = path.join(__dirname, 'fixtures', 'lu-solve.c');
  const out = path.join(work, 'lu-solve-right.report');
  const r = await tsoptAsync(['--verify-each', `--report=${out}`], compileToIr(source, [...FRONT_END, '-DVLA']));
  expect(r.stderr.toString()).toBe('');
  expect(r.status).toBe(0);
  const report = JSON.parse(fs.readFileSync(out, 'utf8')) as { functions: { name: string; scops: (ScopFields & { schedule?: { rightLooking?: string } })[] }[] };
  const [s] = report.functions.find((f) => f.name === 'kernel_lu_solve')!.scops;
  expect(s).toMatchObject({ fastPathFrom: 'delicm', schedule: { taken: true, rightLooking: expect.stringMatching(/^the reduction loop outermost/) } });
  expect(s!.delicmMappedOnly).toBeUndefined();

  const obj = path.join(work, 'lu-solve-right.o');
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', obj], r.stdout);
  const exe = path.join(work, 'lu-solve-right');
  runOk('clang-14', [obj, '-o', exe, '-lm']);
  const reference = path.join(work, 'lu-solve-right.ref');
  runOk('clang-14', ['-O3', '-march=native', '-DVLA', source, '-o', reference, '-lm']);
  for (const n of ['1', '2', '3', '40', '41']) expect([n, runOk(exe, [n]).toString()]).toEqual([n, runOk(reference, [n]).toString()]);
}, 600_000);

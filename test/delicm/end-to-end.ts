// Issue 7 end to end: the fast path generated from DeLICM's model.
//   clang-14 -O3 -fno-vectorize -fno-slp-vectorize | tsopt --passes=delicm,versioning --verify-each --no-post -S
//     | tsopt --passes=none --post-pipeline=<the default> (the post pipeline alone) | llc-14 -O3 | clang-14 (link)
// The IR between the two tsopt runs is what the tests look at: the stack slots left, the
// access groups of the fast path.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { POST_PIPELINE } from '../../cli/post-pipeline';
import { buildKernel, compileKernelToIr, findKernel, runKernel } from '../support/kernels';
import { compileToIr, repoRoot, runOk, tempDir } from '../support/tools';
import { O3, delicmKernel } from './support';

const tsopt = path.join(repoRoot, 'bin', 'tsopt.js');

/** The per-SCoP report fields these tests read. */
export interface E2eScop {
  location: string;
  versioned?: boolean;
  notVersioned?: string;
  fastPathFrom?: 'delicm' | 'model';
  fastPathParallelLoops?: number;
  delicm?: { forwards: number; reloads: number; scalarWritesBefore: number; scalarWritesAfter: number; mappings: string[]; unchanged?: string };
}

export interface E2eBuild {
  /** tsopt's output before the post pipeline. */
  readonly text: string;
  readonly scops: (fn: string) => E2eScop[];
  readonly exe: string;
  /** The pipeline's statistics (`delicm.mapped-scalars`, ...). */
  readonly stats: Record<string, number>;
}

/** Builds kernel `name` through tsopt with `passes`, in `work`. */
export function buildThrough(name: string, passes: string, work: string, libs: readonly string[], flags: readonly string[] = []): E2eBuild {
  return buildBitcodeThrough(compileKernelToIr(name, O3), name, passes, work, libs, flags);
}

/** Builds a C file of fixtures/ (a program without arguments or libraries) through tsopt with `passes`, in `work`. */
export function buildFixtureThrough(file: string, passes: string, work: string): E2eBuild {
  return buildBitcodeThrough(compileToIr(path.join(__dirname, 'fixtures', file), O3), path.basename(file, '.c'), passes, work, []);
}

function buildBitcodeThrough(bitcode: Buffer, name: string, passes: string, work: string, libs: readonly string[], flags: readonly string[] = []): E2eBuild {
  const stem = path.join(work, `${name}.${[passes, ...flags].join(' ').replace(/\W/g, '_')}`);
  const report = `${stem}.json`;
  const text = runOk('node', [tsopt, `--passes=${passes}`, ...flags, '--verify-each', '--no-post', '-S', `--report=${report}`], bitcode).toString();
  // --passes=none alone is the identity: the post pipeline runs when named.
  const optimized = runOk('node', [tsopt, '--passes=none', `--post-pipeline=${POST_PIPELINE}`], text);
  runOk('llc-14', ['-O3', '-relocation-model=pic', '-filetype=obj', '-o', `${stem}.o`], optimized);
  runOk('clang-14', [`${stem}.o`, '-o', stem, ...libs]);
  const r = JSON.parse(fs.readFileSync(report, 'utf8')) as { functions: { name: string; scops: E2eScop[] }[]; pipeline: { stats: Record<string, number> } };
  return { text, exe: stem, scops: (fn) => r.functions.find((f) => f.name === fn)?.scops ?? [], stats: r.pipeline.stats };
}

/** The text of function `fn` in printed IR. */
export function functionText(text: string, fn: string): string {
  const m = new RegExp(`define [^\\n]*@${fn}\\([\\s\\S]*?\\n}\\n`).exec(text);
  if (!m) throw new Error(`no function ${fn} in the output`);
  return m[0];
}

/** Stack slots versioning made for scalars (`%x.phiops`, `%x.s2a`) in a function's text. */
export function scalarSlots(fnText: string): string[] {
  return [...fnText.matchAll(/(%[\w.]*\.(?:phiops|s2a)\d*) = alloca/g)].map((m) => m[1]!);
}

/** The loads and stores of the fast paths (blocks `tsopt.scopN.*` but the check) in a function's text. */
export function fastPathAccesses(fnText: string): string[] {
  const out: string[] = [];
  let inFast = false;
  for (const line of fnText.split('\n')) {
    const label = /^([^\s;][^:]*):/.exec(line);
    if (label) inFast = /^tsopt\.scop\d+\./.test(label[1]!) && !/\.check$/.test(label[1]!);
    else if (inFast && /= load |^\s*store /.test(line)) out.push(line.trim());
  }
  return out;
}

/**
 * Kernels through `--passes=delicm,versioning`: each prints what clang -O3 prints, and every
 * versioned SCoP of its kernel function is generated from DeLICM's model. With `slots`, the
 * fast paths keep a stack slot only for each scalar DeLICM left in its model (so none for a
 * mapped or forwarded one), checked against DeLICM run in-process (twice the model's cost).
 */
export function describeEndToEnd(title: string, kernels: readonly { readonly kernel: string; readonly slots: boolean }[]): void {
  const work = tempDir('tsopt-delicm-e2e-');
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
  describe(title, () => {
    test.each(kernels.map((e) => [e.kernel, e.slots] as const))('%s', (name, slots) => {
      const k = findKernel(name);
      const b = buildThrough(name, 'delicm,versioning', work, k.libs);
      const reference = buildKernel(name, { flags: ['-O3'] });
      for (const args of [k.args, k.altArgs]) expect(runKernel(b.exe, args)).toBe(runKernel(reference, args));
      const fn = `kernel_${name.replace(/-/g, '_')}`;
      const scops = b.scops(fn);
      const versioned = scops.filter((s) => s.versioned);
      // A SCoP DeLICM left unchanged (its quota ran out: covariance) is generated from the plain model, and the report says so.
      for (const s of versioned) expect(s.fastPathFrom).toBe(s.delicm?.unchanged === undefined ? 'delicm' : 'model');
      for (const s of scops) if (!s.versioned) expect(s.notVersioned).toMatch(/\S/);
      if (!slots) return;
      const d = delicmKernel(name);
      try {
        const left = d.results.filter((r) => versioned.some((s) => s.location === r.original.location));
        const scalars = (m: { arrays: readonly { kind: string }[] }) => m.arrays.filter((a) => a.kind !== 'array').length;
        const expected = left.reduce((n, r) => n + scalars(r.model), 0);
        expect(scalarSlots(functionText(b.text, fn)).length).toBe(expected);
        expect(expected).toBeLessThanOrEqual(left.reduce((n, r) => n + scalars(r.original), 0));
      } finally {
        d.dispose();
      }
    }, 300_000);
  });
}

// What Polly 14 finds in our kernels, recorded as reference data for tsopt's SCoP detection:
// per kernel and build (flat, vla), the SCoPs Polly reports with their source ranges
// and assumption remarks, and the regions it rejects with their causes.
//
// Regenerate test/kernels/polly-reference.json after changing a kernel:
//   npm run build && node dist/test/kernels/polly-reference.js [kernel...]
// (or TSOPT_REGEN_POLLY=1 npx jest test/kernels/polly-reference).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { functionAtLine, kernelSourceDir, listKernels, type KernelInfo } from '../support/kernels';
import { run, runOk, tempDir } from '../support/tools';

export const pollyFlags: readonly string[] = [
  '-O3',
  '-fno-vectorize',
  '-fno-slp-vectorize',
  '-mllvm',
  '-polly',
  '-Rpass-analysis=polly-scops',
  '-Rpass-missed=polly-detect',
  '-fno-caret-diagnostics',
  '-fno-color-diagnostics',
  '-c',
];

export const referencePath = path.join(kernelSourceDir, 'polly-reference.json');

export type Build = 'flat' | 'vla';

/** A region Polly modeled ("SCoP begins here." … "SCoP ends here[ but was dismissed].") */
export interface PollyScop {
  /**
   * The function whose source lines hold the region's first remark, when it is in the kernel's
   * own file (for inlined code, the function inlined, e.g. delicm-listing4's dot_row).
   */
  function?: string;
  /** `line:column`, prefixed with the file name when not in the kernel's file (e.g. `kernel.h:94:3`). */
  begin: string;
  end: string | null;
  /** `scop`: kept; `dismissed`: Polly's own words; `unprofitable`: kept by detection but with a false profitability assumption. */
  status: 'scop' | 'dismissed' | 'unprofitable';
  /** Assumptions, restrictions and alias remarks, `location message`, in source order, without repeats. */
  remarks: string[];
}

/** A region detection refused ("The following errors keep this region from being a Scop."). */
export interface PollyRejection {
  function?: string;
  begin: string;
  end: string | null;
  causes: string[];
}

export interface PollyBuildReference {
  scops: PollyScop[];
  rejected: PollyRejection[];
  /** Functions with at least one SCoP of status `scop`. */
  scopFunctions: string[];
  /** Functions for which Polly generated code (blocks named `polly.stmt.*` in the IR). */
  optimizedFunctions: string[];
  /**
   * The same compile with `-mllvm -polly-process-unprofitable`: what Polly can model when its
   * profitability heuristic does not discard a region (e.g. a single loop nest with one statement).
   */
  processUnprofitable: Omit<PollyBuildReference, 'optimizedFunctions' | 'processUnprofitable'>;
}

export interface PollyReference {
  generator: { compiler: string; flags: string[] };
  kernels: Record<string, Partial<Record<Build, PollyBuildReference>>>;
}

interface Remark {
  file: string;
  line: number;
  column: number;
  message: string;
}

const remarkLine = /^(.+?):(\d+):(\d+): remark: (.*?) \[-Rpass[^\]]*\]$/;

function parseRemarks(stderr: string): Remark[] {
  const remarks: Remark[] = [];
  for (const line of stderr.split('\n')) {
    const m = remarkLine.exec(line);
    if (!m) continue; // notes ("could not determine the original source location") and "In file included from"
    remarks.push({
      file: path.basename(m[1]!),
      line: Number(m[2]),
      column: Number(m[3]),
      message: m[4]!.replace(/\s+/g, ' ').trim(),
    });
  }
  return remarks;
}

/** Orders `[file:]line:column[ text]` strings: the kernel's own file first, then by line, column, text. */
function compareLocations(a: string, b: string): number {
  const parse = (s: string): [string, number, number, string] => {
    const m = /^(?:(.+?):)?(\d+):(\d+)(?: (.*))?$/s.exec(s);
    return m ? [m[1] ?? '', Number(m[2]), Number(m[3]), m[4] ?? ''] : ['\uffff', 0, 0, s];
  };
  const [fa, la, ca, ta] = parse(a);
  const [fb, lb, cb, tb] = parse(b);
  if (fa !== fb) return fa < fb ? -1 : 1;
  return la - lb || ca - cb || (ta < tb ? -1 : ta > tb ? 1 : 0);
}

/**
 * Groups the remark stream into regions. Polly prints a SCoP's remarks twice (its analyses run
 * twice in clang's pipeline) and sometimes a profitability remark right after a region ends:
 * stray remarks join the region before them, and repeated regions are merged.
 */
export function pollyRegions(
  kernel: KernelInfo,
  stderr: string,
): Omit<PollyBuildReference, 'optimizedFunctions' | 'processUnprofitable'> {
  const file = path.basename(kernel.path);
  const where = (r: Remark): string => (r.file === file ? `${r.line}:${r.column}` : `${r.file}:${r.line}:${r.column}`);
  const owner = (r: Remark): string | undefined => (r.file === file ? functionAtLine(kernel, r.line)?.name : undefined);

  type Open = { kind: 'scop'; region: PollyScop } | { kind: 'rejected'; region: PollyRejection };
  const regions: Open[] = [];
  let current: Open | undefined;
  let last: Open | undefined;
  for (const r of parseRemarks(stderr)) {
    const fn = owner(r);
    if (r.message === 'SCoP begins here.') {
      current = { kind: 'scop', region: { ...(fn ? { function: fn } : {}), begin: where(r), end: null, status: 'scop', remarks: [] } };
      regions.push(current);
    } else if (r.message === 'The following errors keep this region from being a Scop.') {
      current = { kind: 'rejected', region: { ...(fn ? { function: fn } : {}), begin: where(r), end: null, causes: [] } };
      regions.push(current);
    } else if (r.message.startsWith('SCoP ends here') && current?.kind === 'scop') {
      current.region.end = where(r);
      if (r.message.includes('dismissed')) current.region.status = 'dismissed';
      last = current;
      current = undefined;
    } else if (r.message === 'Invalid Scop candidate ends here.' && current?.kind === 'rejected') {
      current.region.end = where(r);
      last = current;
      current = undefined;
    } else {
      const target = current ?? last;
      if (!target) continue;
      const text = `${where(r)} ${r.message}`;
      if (target.kind === 'scop') {
        if (/^Profitable assumption: .*\{\s*:\s*false\s*\}$/.test(r.message) && target.region.status === 'scop') {
          target.region.status = 'unprofitable';
        }
        target.region.remarks.push(text);
      } else {
        target.region.causes.push(text);
      }
    }
  }

  // The same region comes twice: Polly's analyses run twice, the second time after its own code
  // generation changed a SCoP's exit (so its end location differs). Keep the first end, all
  // remarks, and the least favourable status.
  const rank = { scop: 0, unprofitable: 1, dismissed: 2 } as const;
  const scops: PollyScop[] = [];
  const rejected: PollyRejection[] = [];
  const seen = new Map<string, Open>();
  for (const open of regions) {
    // SCoPs do not overlap, so their first line names them; rejected regions nest and may share it.
    const key = open.kind === 'scop' ? `scop ${open.region.begin}` : `rejected ${open.region.begin} ${open.region.end}`;
    const earlier = seen.get(key);
    if (earlier?.kind === 'scop' && open.kind === 'scop') {
      earlier.region.remarks = [...new Set([...earlier.region.remarks, ...open.region.remarks])];
      if (rank[open.region.status] > rank[earlier.region.status]) earlier.region.status = open.region.status;
      continue;
    }
    if (earlier?.kind === 'rejected' && open.kind === 'rejected') {
      earlier.region.causes = [...new Set([...earlier.region.causes, ...open.region.causes])];
      continue;
    }
    seen.set(key, open);
    if (open.kind === 'scop') {
      open.region.remarks = [...new Set(open.region.remarks)];
      scops.push(open.region);
    } else {
      open.region.causes = [...new Set(open.region.causes)];
      rejected.push(open.region);
    }
  }
  // Polly's order of regions and of remarks within one varies from run to run (it walks hash
  // maps), so both are recorded in source order.
  const byPlace = (a: string, b: string): number => compareLocations(a, b);
  for (const scop of scops) scop.remarks.sort(byPlace);
  for (const rejection of rejected) rejection.causes.sort(byPlace);
  scops.sort((a, b) => byPlace(a.begin, b.begin));
  rejected.sort((a, b) => byPlace(a.begin, b.begin) || byPlace(a.end ?? '', b.end ?? ''));
  const scopFunctions = [...new Set(scops.filter((s) => s.status === 'scop' && s.function).map((s) => s.function!))];
  return { scops, rejected, scopFunctions };
}

/** The functions of a module's text that contain blocks Polly generated (`polly.stmt.*`). */
export function functionsWithPollyCode(irText: string): string[] {
  const found: string[] = [];
  let current: string | undefined;
  for (const line of irText.split('\n')) {
    const define = /^define\b.*?@([\w.$]+)\(/.exec(line);
    if (define) current = define[1];
    else if (line.startsWith('}')) current = undefined;
    else if (current && /^polly\.stmt\./.test(line) && !found.includes(current)) found.push(current);
  }
  return found;
}

/**
 * Runs Polly on one kernel build and returns what it reported, plus (from a second compile to
 * IR with value names kept) the functions Polly actually rewrote.
 */
export function pollyReferenceFor(kernel: KernelInfo, build: Build): PollyBuildReference {
  const variant = build === 'vla' ? ['-DTSOPT_VLA'] : [];
  const source = path.basename(kernel.path);
  // Not `-o /dev/null`: clang renames a temporary next to its output, which races between runs.
  const scratch = tempDir('tsopt-polly-');
  const remarks = (extra: readonly string[]): string => {
    const args = [...pollyFlags, ...extra, ...variant, source, '-o', path.join(scratch, 'k.o')];
    const r = run('clang-14', args, undefined, kernelSourceDir);
    if (r.status !== 0) throw new Error(`clang-14 ${args.join(' ')} failed:\n${r.stderr}`);
    return r.stderr;
  };
  const irArgs = [...pollyFlags.filter((f) => f !== '-c' && !f.startsWith('-R')), ...variant,
    '-fno-discard-value-names', '-S', '-emit-llvm', source, '-o', '-'];
  const ir = runOk('clang-14', irArgs, undefined, kernelSourceDir).toString();
  try {
    return {
      ...pollyRegions(kernel, remarks([])),
      optimizedFunctions: functionsWithPollyCode(ir),
      processUnprofitable: pollyRegions(kernel, remarks(['-mllvm', '-polly-process-unprofitable'])),
    };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

export function compilerVersion(): string {
  return runOk('clang-14', ['--version']).toString().split('\n')[0]!.trim();
}

export function generatePollyReference(kernels: readonly KernelInfo[] = listKernels()): PollyReference {
  const result: PollyReference = { generator: { compiler: compilerVersion(), flags: [...pollyFlags] }, kernels: {} };
  for (const kernel of kernels) {
    const entry: Partial<Record<Build, PollyBuildReference>> = { flat: pollyReferenceFor(kernel, 'flat') };
    if (kernel.hasVla) entry.vla = pollyReferenceFor(kernel, 'vla');
    result.kernels[kernel.name] = entry;
  }
  return result;
}

export function writePollyReference(reference: PollyReference, file = referencePath): void {
  fs.writeFileSync(file, `${JSON.stringify(reference, null, 2)}\n`);
}

export function readPollyReference(file = referencePath): PollyReference {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as PollyReference;
}

if (require.main === module) {
  // With kernel names as arguments, only those entries are regenerated; the rest are kept.
  const only = process.argv.slice(2);
  const chosen = only.length > 0 ? listKernels().filter((k) => only.includes(k.name)) : listKernels();
  if (chosen.length !== (only.length || chosen.length)) throw new Error(`unknown kernel among: ${only.join(' ')}`);
  const fresh = generatePollyReference(chosen);
  const reference = only.length > 0 ? readPollyReference() : fresh;
  if (only.length > 0) {
    reference.generator = fresh.generator;
    Object.assign(reference.kernels, fresh.kernels);
    reference.kernels = Object.fromEntries(Object.entries(reference.kernels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
  writePollyReference(reference);
  process.stdout.write('kernel                 build: SCoPs / rewritten by Polly / SCoPs with -polly-process-unprofitable\n');
  for (const [name, builds] of Object.entries(fresh.kernels)) {
    const list = (names: string[]): string => names.filter((n) => n !== 'main').join(',') || '-';
    const show = (b?: PollyBuildReference): string =>
      b ? `${list(b.scopFunctions)} / ${list(b.optimizedFunctions)} / ${list(b.processUnprofitable.scopFunctions)}` : 'n/a';
    process.stdout.write(`${name.padEnd(22)} flat: ${show(builds.flat).padEnd(64)} vla: ${show(builds.vla)}\n`);
  }
  process.stdout.write(`wrote ${referencePath}\n`);
}

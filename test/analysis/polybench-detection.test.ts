// Every PolyBench-style kernel, flat and as C99 VLAs: how many SCoPs detection
// finds in the kernel function. One SCoP for the whole kernel unless the -O3
// code splits it, and then the table says why.
import { compileC, fn, analyses } from './helpers';
import { scopDetectionAnalysis } from '../../analysis/scop-detection';
import type { RejectionCause } from '../../analysis/scop-detection-types';
import { listKernels } from '../support/kernels';

interface Split {
  readonly scops: number;
  readonly causes: RejectionCause[];
  readonly why: string;
}

const memsetSplit = 'on the path where an inner size is <= 0, -O3 turns a zero-initialising loop into llvm.memset, a call we do not model: one SCoP per product';

/** Kernel (and build) -> the split, for the kernels that are not one SCoP. */
const splits: Record<string, Split> = {
  '2mm flat': { scops: 2, causes: [], why: memsetSplit },
  '2mm vla': { scops: 2, causes: [], why: memsetSplit },
  '3mm flat': { scops: 3, causes: [], why: memsetSplit },
  '3mm vla': { scops: 3, causes: [], why: memsetSplit },
  'adi vla': { scops: 6, causes: ['aliasing'], why: 'with VLA parameters -O3 versions the sweeps on run-time alias checks (pointer comparisons); the loops on either side are SCoPs' },
  'correlation flat': { scops: 2, causes: [], why: 'sqrt, a libm call that writes only errno, is a statement (passes/analysis/math-calls.ts); the kernel is covered by two maximal regions, no loop rejected' },
  'correlation vla': { scops: 2, causes: [], why: 'sqrt, a libm call that writes only errno, is a statement (passes/analysis/math-calls.ts); the kernel is covered by two maximal regions, no loop rejected' },
};

const cases = listKernels('polybench').flatMap((k) => [[k.name, 'flat'], [k.name, 'vla']] as const);

test.each(cases)('%s (%s)', (kernel, build) => {
  const m = compileC(`kernels/${kernel}.c`, build === 'vla' ? ['-DTSOPT_VLA'] : []);
  const info = listKernels('polybench').find((k) => k.name === kernel)!;
  const want = splits[`${kernel} ${build}`] ?? { scops: 1, causes: [] as RejectionCause[], why: '' };
  for (const f of info.functions.filter((x) => x.isKernel)) {
    const r = analyses().get(scopDetectionAnalysis, fn(m, f.name));
    expect({ function: f.name, scops: r.scops.length }).toEqual({ function: f.name, scops: want.scops });
    expect([...new Set(r.rejections.map((x) => x.cause))].sort()).toEqual(want.causes);
  }
});

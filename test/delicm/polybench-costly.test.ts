// Issue 7's acceptance on the PolyBench-style kernels that take DeLICM longest (see polybench-table.ts).
import { costlyKernels } from './polybench-table';
import { describeKernels } from './polybench';

describeKernels('DeLICM on the costlier PolyBench-style kernels at clang -O3', costlyKernels);

// Issue 7's acceptance on our PolyBench-style kernels (see polybench-table.ts for the expectations and the reasons).
import { cheapKernels } from './polybench-table';
import { describeKernels } from './polybench';

describeKernels('DeLICM on the PolyBench-style kernels at clang -O3', cheapKernels);

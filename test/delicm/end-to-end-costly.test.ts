// Issue 7 end to end on the PolyBench-style kernels that take DeLICM longest (see end-to-end.ts);
// a separate file so that jest runs them next to the cheap ones.
import { describeEndToEnd } from './end-to-end';
import { costlyKernels } from './polybench-table';

// Outputs only: running DeLICM in-process again for the slot check would double the longest kernels.
describeEndToEnd('the costlier PolyBench-style kernels through --passes=delicm,versioning', costlyKernels.map((e) => ({ kernel: e.kernel, slots: false })));

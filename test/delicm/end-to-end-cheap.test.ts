// Issue 7 end to end on the PolyBench-style kernels DeLICM handles quickly (see end-to-end.ts).
import { describeEndToEnd } from './end-to-end';
import { cheapKernels } from './polybench-table';

// The slot check runs DeLICM in-process again: only where it maps something.
describeEndToEnd('PolyBench-style kernels through --passes=delicm,versioning', cheapKernels.map((e) => ({ kernel: e.kernel, slots: e.before.some((n) => n > 0) })));

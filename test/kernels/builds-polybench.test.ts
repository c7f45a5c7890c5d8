// PolyBench-style kernels: see build-checks.ts for what every kernel must satisfy.
import { listKernels } from '../support/kernels';
import { describeKernelBuilds } from './build-checks';

describeKernelBuilds(listKernels('polybench'));

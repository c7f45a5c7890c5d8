// TSVC-shaped kernels (tsvc-*.c, issue 24): see build-checks.ts for what every kernel must satisfy.
import { listKernels } from '../support/kernels';
import { describeKernelBuilds } from './build-checks';

describeKernelBuilds(listKernels('tsvc'));

// --parallel, read by versioning (the fast paths' loops on OpenMP's threads) and by the schedule
// optimizer's settings (with it, time tiles run in wavefronts by default).
import type { PassOption } from './pass';

export const parallelOption: PassOption = {
  name: 'parallel',
  description: 'run the outermost loops of each fast path that carry no dependence on the threads of the OpenMP runtime (GOMP_parallel; link with -fopenmp; the thread count from OMP_NUM_THREADS); serially inside a parallel region or below --parallel-min-work (default false)',
};

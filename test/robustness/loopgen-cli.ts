// Prints the random affine kernel of one seed (to reproduce a failing case of affine-kernels.test.ts):
// `node dist/test/robustness/loopgen-cli.js SEED kernel > kernel.c`, `… SEED main > main.c`;
// a fourth argument `strided` for the strided variant (strided-kernels.test.ts).
import { generateKernel } from './loopgen';

const seed = Number(process.argv[2]);
const part = process.argv[3];
if (!Number.isInteger(seed) || (part !== 'kernel' && part !== 'main')) {
  process.stderr.write('usage: loopgen-cli SEED kernel|main\n');
  process.exitCode = 2;
} else {
  process.stdout.write(generateKernel(seed, { strided: process.argv[4] === 'strided' })[part]);
}

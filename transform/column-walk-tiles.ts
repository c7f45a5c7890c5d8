// Tile sizes for a band whose innermost member still walks some array across rows: syrk's
// A[j][k] along j (C[i][j] += alpha * A[i][k] * A[j][k], j innermost: the only order opt can
// vectorize, since k carries the sum and floating point is not reassociated). Each step of such
// a walk brings a new cache line to L1, and the line's other elements are used only by the next
// iterations of a member outside (k). tile-sizes.ts sizes the innermost loop for row segments
// in L1 and the rest for L2; here the tile's lines of the walked array must stay in L1 from one
// k to the next, so every member gets the same size T, the largest multiple of the SIMD lanes
// with arrays * T * T * elem <= L1 / 2 (32 for two arrays of doubles in a 32 KiB L1, Polly's
// size). uBLAS syrk at n = 1000: 3.07 s against 5.39 s with 128 x 128 x 256 (one run each,
// load average 30).
import type { TileSizeInput, TileSizes } from './tile-sizes';

export function columnWalkTileSizes(input: TileSizeInput, walks: number): TileSizes {
  const { caches, vectorBytes, members } = input;
  const elem = Math.max(1, input.elementBytes);
  const arrays = Math.max(1, input.arrays);
  const lanes = Math.max(1, Math.floor(vectorBytes / elem));
  const side = Math.max(lanes, Math.floor(Math.sqrt(caches.l1 / (2 * arrays * elem)) / lanes) * lanes);
  const why =
    `${arrays} array(s) of ${elem}-byte elements, ${walks} access(es) walking across rows along the innermost member: ` +
    `every member ${side} (${arrays}x${side}x${side}x${elem} B <= L1 ${caches.l1 >> 10} KiB / 2)`;
  return { sizes: Array.from({ length: members }, () => side), why };
}

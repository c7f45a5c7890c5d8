// Tile sizes from the machine and the band (the SIMD-aware tiling idea of the IMPACT 2013 seed):
// the innermost intra-tile loop walks rows stride-1 and runs a multiple of the SIMD width, and
// one tile's data fits in the caches the loops around it reuse it from.
//
//   innermost size  T_in  = the largest multiple of the SIMD lanes with arrays * T_in * elem <= L1 / 2,
//                           at most 256 (a row segment of each array per innermost loop stays in L1)
//   other sizes     T_out = arrays * T_out * T_in * elem <= L2 / 2 (a tile's rows of every array
//                           stay in L2 while the tile runs), a multiple of 4 in [8, 256]
//   second innermost T_mid = planes * T_mid * T_in * elem <= L1 / 2, a multiple of 4 in [4, T_out],
//                           in a band of three members or more where `planes` arrays are walked
//                           along both innermost members (gemm's B[k][j] under i, k, j): the
//                           members outside run the two innermost point loops again and again
//                           over that T_mid x T_in plane, which then comes from L1, not L2.
//                           uBLAS covariance at n = 1000 (i, k, j-i): 0.19 s of CPU at
//                           128 x 8 x 256 against 0.33 s at 128 x 128 x 256 (Polly 0.22 s);
//                           PolyBench gemm without the matmul path: 0.17 s either way.
//
// Polly uses 32 for every band member; at the LARGE sizes of PolyBench, 32 leaves gemm's
// inner loop at four AVX-512 vectors, and each tile re-reads its rows from L2 32 times only.
import * as fs from 'node:fs';
import type { Module } from '../ir';

/** Bytes of the data caches a tile is sized for. */
export interface CacheSizes {
  readonly l1: number;
  readonly l2: number;
}

/** What sizes a band's tiles: the machine and the band. */
export interface TileSizeInput {
  readonly caches: CacheSizes;
  /** Bytes of the widest vector register the module's target has (16: SSE, 32: AVX2, 64: AVX-512). */
  readonly vectorBytes: number;
  /** Bytes of the widest array element the band touches. */
  readonly elementBytes: number;
  /** Arrays the band touches (scalars not counted). */
  readonly arrays: number;
  /** Band members, outermost first; the last one runs innermost inside a tile. */
  readonly members: number;
  /** Arrays some access of the band walks along both innermost members (0 or absent: none). */
  readonly planes?: number;
}

/** Tile sizes of one band, outermost member first, with the line that says why. */
export interface TileSizes {
  readonly sizes: readonly number[];
  readonly why: string;
}

/** Caches when /sys says nothing (x86-64 of the last decade: 32 KiB L1d, 1 MiB L2). */
const fallbackCaches: CacheSizes = { l1: 32 << 10, l2: 1 << 20 };

/** `32K`, `1024K`, `32M` as /sys/devices/system/cpu/cpu0/cache/index* write them. */
function parseCacheSize(text: string): number | undefined {
  const m = /^(\d+)\s*([KMG]?)/i.exec(text.trim());
  if (!m) return undefined;
  const unit = { '': 1, K: 1 << 10, M: 1 << 20, G: 1 << 30 }[m[2]!.toUpperCase() as '' | 'K' | 'M' | 'G'];
  return Number(m[1]) * unit;
}

/** L1 data and L2 sizes of cpu0 from `dir` (/sys/devices/system/cpu/cpu0/cache), else a common x86-64's. */
export function machineCaches(dir = '/sys/devices/system/cpu/cpu0/cache'): CacheSizes {
  let l1: number | undefined;
  let l2: number | undefined;
  let entries: string[] = [];
  try {
    entries = fs.readdirSync(dir).filter((e) => /^index\d+$/.test(e));
  } catch {
    return fallbackCaches;
  }
  for (const e of entries) {
    const read = (f: string): string => {
      try {
        return fs.readFileSync(`${dir}/${e}/${f}`, 'utf8').trim();
      } catch {
        return '';
      }
    };
    const level = read('level');
    const type = read('type');
    const size = parseCacheSize(read('size'));
    if (size === undefined) continue;
    if (level === '1' && type === 'Data') l1 = size;
    if (level === '2' && type !== 'Instruction') l2 = size;
  }
  return { l1: l1 ?? fallbackCaches.l1, l2: l2 ?? fallbackCaches.l2 };
}

/**
 * Bytes of the widest vector register of the module's functions' target features
 * (`"target-features"="+avx512f,..."`; clang's -march=native writes them): 64 with AVX-512F, 32
 * with AVX, else 16 (SSE2, which every x86-64 has).
 */
export function vectorBytesOf(module: Module): number {
  let widest = 16;
  for (const group of module.attributeGroups.values()) {
    const features = /"target-features"="([^"]*)"/.exec(group)?.[1] ?? '';
    if (/\+avx512f\b/.test(features)) widest = Math.max(widest, 64);
    else if (/\+avx\b|\+avx2\b/.test(features)) widest = Math.max(widest, 32);
  }
  return widest;
}

function roundDown(x: number, multiple: number): number {
  return Math.floor(x / multiple) * multiple;
}

/** The tile sizes of one band (see the head of this file). */
export function tileSizes(input: TileSizeInput): TileSizes {
  const { caches, vectorBytes, members } = input;
  const elem = Math.max(1, input.elementBytes);
  const arrays = Math.max(1, input.arrays);
  const lanes = Math.max(1, Math.floor(vectorBytes / elem));
  const inner = Math.max(lanes, Math.min(roundDown(256, lanes), roundDown(caches.l1 / (2 * arrays * elem), lanes)));
  const outer = Math.min(256, Math.max(8, roundDown(caches.l2 / (2 * arrays * inner * elem), 4)));
  const planes = members >= 3 ? Math.max(0, input.planes ?? 0) : 0;
  const mid = planes > 0 ? Math.min(outer, Math.max(4, roundDown(caches.l1 / (2 * planes * inner * elem), 4))) : outer;
  const sizes = Array.from({ length: members }, (_, k) => (k === members - 1 ? inner : k === members - 2 ? mid : outer));
  const plane = planes > 0 ? `, second innermost ${mid} (${planes}x${mid}x${inner}x${elem} B <= L1 ${caches.l1 >> 10} KiB / 2: the plane the members outside walk again)` : '';
  const why =
    `${arrays} array(s) of ${elem}-byte elements, ${lanes} per ${vectorBytes}-byte vector: innermost ${inner} ` +
    `(${arrays}x${inner}x${elem} B <= L1 ${caches.l1 >> 10} KiB / 2), others ${outer} (${arrays}x${outer}x${inner}x${elem} B <= L2 ${caches.l2 >> 10} KiB / 2)${plane}`;
  return { sizes, why };
}

// Deterministic mutations of a bitcode file, for the robustness tests.

/** mulberry32: a small seeded generator, so a failing case can be replayed from its seed. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Mutation = 'bit-flips' | 'truncation' | 'insertion';
export const MUTATIONS: readonly Mutation[] = ['bit-flips', 'truncation', 'insertion'];

export interface Mutant {
  readonly seed: number;
  readonly mutation: Mutation;
  readonly bytes: Buffer;
}

/** Mutant number `seed` of `original`: 1–8 flipped bits, a cut at a random length, or 1–4 inserted bytes. */
export function mutate(original: Buffer, seed: number): Mutant {
  const rnd = random(seed);
  const below = (n: number) => Math.floor(rnd() * n);
  const mutation = MUTATIONS[seed % MUTATIONS.length];
  let bytes = Buffer.from(original);
  if (mutation === 'bit-flips') {
    for (let k = 1 + below(8); k > 0; k--) {
      const bit = below(bytes.length * 8);
      bytes[bit >> 3] ^= 1 << (bit & 7);
    }
  } else if (mutation === 'truncation') {
    bytes = bytes.subarray(0, below(bytes.length));
  } else {
    for (let k = 1 + below(4); k > 0; k--) {
      const at = below(bytes.length + 1);
      bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from([below(256)]), bytes.subarray(at)]);
    }
  }
  return { seed, mutation, bytes };
}

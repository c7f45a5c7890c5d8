// isl's schedule tree as plain data over isl objects of the current scope: what the schedule
// optimizer reads from isl's scheduler, rewrites (permutes, distributes) and builds back.
import type { MultiUnionPwAff, UnionSet } from 'isl-wasm';

export type Plan =
  | {
    readonly kind: 'band'; mupa: MultiUnionPwAff; readonly permutable: boolean; coincident: boolean[]; readonly child: Plan;
    /** A band of one member cut into blocks of this many iterations: the block loop a tile loop, the member's a point loop (transform/right-looking.ts). */
    readonly blocks?: number;
  }
  | { readonly kind: 'sequence' | 'set'; readonly children: readonly { readonly filter: UnionSet; readonly child: Plan }[] }
  | { readonly kind: 'leaf' };

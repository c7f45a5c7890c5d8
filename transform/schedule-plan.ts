// isl's schedule tree as plain data over isl objects of the current scope: what the schedule
// optimizer reads from isl's scheduler, rewrites (permutes, distributes) and builds back.
import type { MultiUnionPwAff, UnionSet } from 'isl-wasm';

export type Plan =
  | { readonly kind: 'band'; mupa: MultiUnionPwAff; readonly permutable: boolean; coincident: boolean[]; readonly child: Plan }
  | { readonly kind: 'sequence' | 'set'; readonly children: readonly { readonly filter: UnionSet; readonly child: Plan }[] }
  | { readonly kind: 'leaf' };

// The analyses' printer passes (`print<…>`), for tests and for people; the registry lists them.
import type { ModulePass } from '../pass';

export const analysisPasses: ModulePass[] = [];

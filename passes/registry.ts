// The one table of passes. `--passes=`, `--help` and the option check all read it;
// a new pass is added here and nowhere else.
import { analysisPasses } from './analysis-printers';
import { delicmPasses } from './delicm';
import { delinearizationPasses } from './delinearize';
import { printInterchangePass } from './interchange';
import { printSchedulePass } from './schedule';
import { profilePasses } from './profile';
import type { ModulePass } from './pass';
import { scopPasses } from './scop-passes';
import { verifyPass } from './verify';
import { versioningPass } from './versioning';

const table: readonly ModulePass[] = [verifyPass, ...analysisPasses, ...delinearizationPasses, ...scopPasses, ...delicmPasses, printInterchangePass, printSchedulePass, ...profilePasses, versioningPass];

function byName(passes: readonly ModulePass[]): ReadonlyMap<string, ModulePass> {
  const map = new Map<string, ModulePass>();
  for (const pass of passes) {
    if (map.has(pass.name)) throw new Error(`two passes are registered as '${pass.name}'`);
    if (!/^[a-z][a-z0-9-]*(<[a-z0-9-]+>)?$/.test(pass.name)) throw new Error(`bad pass name '${pass.name}'`);
    map.set(pass.name, pass);
  }
  return map;
}

export const passRegistry: ReadonlyMap<string, ModulePass> = byName(table);

// The one table of passes, and of the stages after opt-14. `--passes=`, `--help` and the
// option check all read it; a new pass or stage is added here and nowhere else.
import { analysisPasses } from './analysis-printers';
import { delicmPasses } from './delicm';
import { delinearizationPasses } from './delinearize';
import { printInterchangePass } from './interchange';
import { hoistLoadsPass } from './hoist-loads';
import { lastIndexPass } from './last-index';
import { printSchedulePass } from './schedule';
import { profilePasses } from './profile';
import type { AfterOptStage, ModulePass } from './pass';
import { profitabilityStage } from './profitability-stage';
import { scopPasses } from './scop-passes';
import { sinkStoresPass } from './sink-stores';
import { verifyPass } from './verify';
import { versioningPass } from './versioning';

const table: readonly ModulePass[] = [verifyPass, ...analysisPasses, ...delinearizationPasses, ...scopPasses, ...delicmPasses, printInterchangePass, printSchedulePass, ...profilePasses, sinkStoresPass, hoistLoadsPass, lastIndexPass, versioningPass];

function byName<P extends { readonly name: string }>(passes: readonly P[]): ReadonlyMap<string, P> {
  const map = new Map<string, P>();
  for (const pass of passes) {
    if (map.has(pass.name)) throw new Error(`two passes are registered as '${pass.name}'`);
    if (!/^[a-z][a-z0-9-]*(<[a-z0-9-]+>)?$/.test(pass.name)) throw new Error(`bad pass name '${pass.name}'`);
    map.set(pass.name, pass);
  }
  return map;
}

export const passRegistry: ReadonlyMap<string, ModulePass> = byName(table);

/** The stages that decide on opt-14's output, in the order they run (after the post pipeline). */
export const afterOptStages: readonly AfterOptStage[] = [profitabilityStage as AfterOptStage];

// Passes and stages share one namespace: --help, the logs and the report name them alike.
byName<{ readonly name: string }>([...table, ...afterOptStages]);

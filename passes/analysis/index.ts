// The analyses' printer passes (`print<…>`), for tests and for people; the registry lists them.
// Each prints, for every defined function, to stderr (where opt prints its analyses).
import type { ModulePass } from '../pass';
import {
  printerPass, scopMemsetOption, printDominatorTree, printPostDominatorTree, printLoops, printScalarEvolution, printScopDetection, printScops,
} from './printers';

export { dominatorTreeAnalysis, postDominatorTreeAnalysis } from './dominators';
export { loopAnalysis } from './loops';
export { scalarEvolutionAnalysis } from './scalar-evolution';
export { scopDetectionAnalysis, scopDetectionWithMemsetAnalysis, scopDetectionFor, detectScops, type ScopDetectionOptions } from './scop-detection';

export const analysisPasses: ModulePass[] = [
  printerPass('domtree', 'print the dominator tree of every function', printDominatorTree),
  printerPass('postdomtree', 'print the post-dominator tree of every function', printPostDominatorTree),
  printerPass('loops', 'print the natural loops with preheader, latch, exits and backedge-taken count', printLoops),
  printerPass('scalar-evolution', 'print the closed form of every integer and pointer value and each loop\'s trip count', printScalarEvolution),
  printerPass('scop-detection', 'print the SCoPs found and the rejected regions with their causes', printScopDetection, [scopMemsetOption]),
  printerPass('scop-statements', 'print what detection hands to the model: loops, statements, domains, accesses, scalars', printScops, [scopMemsetOption]),
];

// The analyses' keys, for passes that ask the analysis manager for them.
export { dominatorTreeAnalysis, postDominatorTreeAnalysis } from './dominators';
export { loopAnalysis } from './loops';
export { scalarEvolutionAnalysis } from './scalar-evolution';
export { scopDetectionAnalysis, scopDetectionWithMemsetAnalysis, scopDetectionFor, detectScops, type ScopDetectionOptions } from './scop-detection';

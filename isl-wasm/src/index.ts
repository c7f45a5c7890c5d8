// isl-wasm: isl 0.25 compiled to WebAssembly, with a typed API.
//
// Classes are named after isl's types (isl_union_map → UnionMap) and methods
// after isl's functions in camelCase (isl_union_map_apply_range →
// applyRange), so isl's manual (doc/user.pod) documents them. The classes
// are generated from isl's annotated headers (tools/generate.mjs); see
// object.ts for the ownership model and ctx.ts for errors, options and the
// operations quota.
export * from './generated/isl';
export { Ctx, chargeIslAllocations, islHeapInUse, type IslOptions, type IslSwitches, type IslNumbers } from './ctx';
export { IslError, IslQuotaError, IslUseAfterFreeError, IslObject, type IslPtr } from './object';
export { readAstExpr, readAstNode, formatAstExpr, type AstExprTree, type AstNodeTree, type AstOpName } from './ast';
export {
  basicSetConstraints, basicMapConstraints, valToBigInt, setConstraints, mapConstraints, setDimNames, mapDimNames,
  type ConstraintData, type DimNames,
} from './readback';

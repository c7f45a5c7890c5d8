// The public API of the IR model. Read the header of ./types.ts for the conventions.
export * from './types';
export * from './type-ops';
export * from './uses';
export * from './cfg';
export * from './metadata';
export * from './nodes';
export { IrParseError } from './lexer';
export { parseModule, gepResultType } from './parser';
export { printModule, printFunction, printInstruction, printValue } from './printer';

export * from './edit';
export * from './clone';
export * from './module';
export * from './builder';
export { isUnnamed, numberLocals } from './numbering';
export * from './invariants';
export * from './attributes';
export * from './values';

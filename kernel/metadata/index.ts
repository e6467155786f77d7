export { MetadataRegistry, MetadataError, type HookModule, type LoadOptions, type MetadataProblem } from './registry';
export { formatProblem } from './metadata-error';
export type { HookHandler, CodeAction } from './load-code';
export { titleCase } from './title-case';
export * from './types';

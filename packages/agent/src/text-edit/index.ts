export * from './apply-file-blocks.ts';
export * from './parse-file-blocks.ts';

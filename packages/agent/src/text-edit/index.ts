export * from './apply-file-blocks.ts';
export * from './format-file-replacements.ts';
export * from './parse-file-blocks.ts';

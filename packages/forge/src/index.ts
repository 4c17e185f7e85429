export * from './forge.ts';
export * from './local-forge.ts';

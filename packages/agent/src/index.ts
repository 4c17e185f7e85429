export * from './model-provider.ts';

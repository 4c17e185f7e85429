export * from './redis-test.ts';

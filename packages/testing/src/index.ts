export { redisTest } from './redis-test.ts';

export { redisTest } from './redis-test.ts';
export { type ScratchGitRepo, scratchGitRepo } from './scratch-git-repo.ts';

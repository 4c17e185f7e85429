export { loadRepositoryInstructions } from './load-repository-instructions.ts';
export { RepositoryInstructions } from './repository-instructions.ts';

export { loadRepositoryInstructions } from './load-repository-instructions.ts';
export {
  instructionsSection,
  RepositoryInstructions,
} from './repository-instructions.ts';

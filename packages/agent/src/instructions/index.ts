export { type InstructionKind, instructionCandidates } from './instruction-candidates.ts';
export { type BaseCommitFiles, loadRepositoryInstructions } from './load-repository-instructions.ts';
export {
  DEFAULT_INSTRUCTION_TOKENS,
  type InstructionFile,
  instructionsSection,
  RepositoryInstructions,
  type SkippedInstruction,
} from './repository-instructions.ts';

import { unpricedModelReason } from '@pullwright/agent/prices';
import { ConfigError, type EnvIssue, type ProcessRole, readConfig } from '@pullwright/core';

/**
 * What a process checks before any server code loads, so a bad setting ends it at once:
 * every invalid variable, one the role needs but lacks, and, where operations run, a model
 * whose price is unknown (its cost could not be held to MAX_COST_USD). Returns what the
 * process should warn about once it has a logger.
 */
export function checkStart(env: NodeJS.ProcessEnv, role: ProcessRole): EnvIssue[] {
  const { config, warnings } = readConfig(env, role);
  const unpriced = role === 'api' ? undefined : unpricedModelReason(config.llm);
  if (unpriced) throw new ConfigError([{ variable: 'LLM_PRICES', reason: unpriced }]);
  return warnings;
}

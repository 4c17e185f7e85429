import { analyzeFeature, type Parsed } from '@pullwright/agent';
import type { FeatureAnalysis, FeatureRequest } from '@pullwright/core';
import type { PipelineDeps } from '../pipeline-deps.ts';

/** Only a request waiting for its analysis takes one; a retried job finds it done and leaves it. */
const WAITING = new Set(['new', 'analysis_failed']);

/**
 * The `analyze_feature` job: the model's strict-JSON analysis of a captured feature request,
 * recorded on it (`analyzed`, with its priority and acceptance criteria), or the reason it
 * failed (`analysis_failed`) — never left waiting.
 */
export async function analyzeFeatureRequest(
  id: string,
  deps: Pick<PipelineDeps, 'features' | 'createProvider' | 'redactor' | 'logger'>,
): Promise<FeatureRequest> {
  const request = await deps.features.get(id);
  if (!WAITING.has(request.status)) return request;
  let result: Parsed<FeatureAnalysis>;
  try {
    const provider = deps.createProvider({ id: request.id, repo: request.repo, description: request.description });
    ({ result } = await analyzeFeature(provider, request));
  } catch (err) {
    result = { ok: false, problem: `the model could not be asked: ${deps.redactor.redact((err as Error).message)}` };
  }
  if (!result.ok) deps.logger.warn({ featureRequest: id, problem: result.problem }, 'feature analysis failed');
  return deps.features.update(id, (cur) => {
    if (!WAITING.has(cur.status)) return cur;
    const { analysisError: _previous, ...rest } = cur;
    if (!result.ok) return { ...rest, status: 'analysis_failed', analysisError: `analysis failed: ${result.problem}` };
    const analysis = result.value;
    return {
      ...rest,
      status: 'analyzed',
      analysis,
      priority: analysis.priority,
      acceptanceCriteria: analysis.acceptanceCriteria,
    };
  });
}

import { analyzeFeature, costOf, type ModelProvider, type ModelResponse, type Parsed } from '@pullwright/agent';
import { describeOutcome, type FeatureAnalysis, type FeatureRequest } from '@pullwright/core';
import { dailyCapRefusal } from '../budget/daily-cap-refusal.ts';
import type { PipelineDeps } from '../frame/pipeline-deps.ts';

/** Only a request waiting for its analysis takes one; a retried job finds it done and leaves it. */
const WAITING = new Set(['new', 'analysis_failed']);

/**
 * The `analyze_feature` job: the model's strict-JSON analysis of a captured feature request,
 * recorded on it (`analyzed`, with its priority and acceptance criteria), or the reason it
 * failed (`analysis_failed`) — never left waiting.
 */
export async function analyzeFeatureRequest(
  id: string,
  deps: Pick<
    PipelineDeps,
    'features' | 'createProvider' | 'redactor' | 'logger' | 'dailySpend' | 'approvalPolicy' | 'prices'
  >,
): Promise<FeatureRequest> {
  const request = await deps.features.get(id);
  if (!WAITING.has(request.status)) return request;
  let result: Parsed<FeatureAnalysis>;
  // issue 32: an analysis spends too: refused at the door by a spent daily cap (the service policy's:
  // no repository file is read for an analysis), and its calls count toward today's spend.
  const refused = dailyCapRefusal(await deps.dailySpend.spent(request.repo), deps.approvalPolicy.policyOf({}).budgets);
  try {
    if (refused) throw new Error(describeOutcome(refused));
    const provider = countedProvider(
      deps.createProvider({ id: request.id, repo: request.repo, description: request.description }),
      (response) => deps.dailySpend.add(request.repo, costOf(response.model, response.usage, deps.prices).usd),
    );
    ({ result } = await analyzeFeature(provider, request));
  } catch (err) {
    result = {
      ok: false,
      problem: refused
        ? describeOutcome(refused)
        : `the model could not be asked: ${deps.redactor.redact((err as Error).message)}`,
    };
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

/** The provider, telling `onAnswer` of every answer (its model and usage) before the caller reads it. */
function countedProvider(provider: ModelProvider, onAnswer: (response: ModelResponse) => Promise<void>): ModelProvider {
  return {
    name: provider.name,
    complete: async (request) => {
      const response = await provider.complete(request);
      await onAnswer(response);
      return response;
    },
  };
}

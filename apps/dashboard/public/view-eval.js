// Evaluations (#/eval): what `pullwright eval run` measured, one card per tasks file and model,
// from GET /v1/eval/runs. Runs are made from the CLI (see docs/eval.md); this page reads them.
import { api } from './api.js';
import { renderEvalSuite, suitesOf } from './card-eval-runs.js';
import { fill, h, notice } from './dom.js';

export function evalView(root) {
  document.title = 'Evaluations · Pullwright';
  fill(root, notice('loading', 'Loading evaluation runs…'));
  void (async () => {
    try {
      const { runs } = await api('GET', '/v1/eval/runs?limit=200');
      if (runs.length === 0) {
        fill(
          root,
          h('h1', {}, 'Evaluations'),
          notice(
            'empty',
            'No evaluation has run yet',
            'Measure the agent on your own history: pullwright eval mine <owner/name> > tasks.jsonl, then pullwright eval run tasks.jsonl.',
          ),
        );
        return;
      }
      fill(root, h('h1', {}, 'Evaluations'), suitesOf(runs).map(renderEvalSuite));
    } catch (err) {
      fill(root, notice('error', 'Evaluation runs could not be loaded', err.message));
    }
  })();
  return () => {};
}

// Deploying a merged operation: the button (the server checks the deploy role) and the last deploy's state.
import { button, h } from './dom.js';

const DEPLOY_WORDS = {
  running: 'Deploying…',
  succeeded: 'Deployed',
  failed: 'Deploy failed',
  rolled_back: 'Deploy failed and was rolled back',
  rollback_failed: 'Deploy failed and the rollback failed',
};

/**
 * Null before the merge, and when the policy recorded at claim configures no deploy (the
 * button would only answer with an error). An operation claimed before policies were recorded
 * is deployed by the service policy, as the server does: the button stays. A running deploy
 * disables it.
 */
export function renderDeploy(op, { onDeploy }) {
  if (op.status !== 'merged' || (op.policy && !op.policy.deploy)) return null;
  const d = op.deploy;
  const running = d?.status === 'running';
  return h(
    'div',
    { class: 'deploy', id: 'deploy-panel' },
    d
      ? h(
          'p',
          { class: d.status === 'succeeded' ? 'good-text' : running ? 'muted' : 'bad', id: 'deploy-status' },
          `${DEPLOY_WORDS[d.status] ?? d.status} · ${d.target} · by ${d.by}${d.error ? `: ${d.error}` : ''}`,
        )
      : null,
    button(running ? 'Deploying…' : d ? 'Deploy again' : 'Deploy', () => onDeploy(), 'primary', {
      id: 'deploy',
      disabled: running,
    }),
  );
}

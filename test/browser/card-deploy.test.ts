// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { type CardElement, loadCard } from './load-card.ts';

type Render = (op: Record<string, unknown>, on: { onDeploy: () => void }) => CardElement | null;
const { renderDeploy } = await loadCard<{ renderDeploy: Render }>('card-deploy.js');

/** What the operation records at claim when its policy configures a deploy. */
const policy = { deploy: { target: { kind: 'webhook', url: 'https://deploy.example/hook' }, on_merge: false } };

describe('the deploy card', () => {
  it('offers Deploy on a merged operation', () => {
    let clicked = 0;
    const el = renderDeploy({ status: 'merged', policy }, { onDeploy: () => clicked++ });
    el!.querySelector('#deploy')!.click();
    expect(clicked).toBe(1);
    expect(el!.querySelector('#deploy-status')).toBeNull();
  });

  it('shows the running deploy and disables the button', () => {
    const el = renderDeploy(
      { status: 'merged', policy, deploy: { status: 'running', target: 'webhook', by: 'dee', startedAt: 'x' } },
      { onDeploy: () => undefined },
    );
    expect(el!.querySelector('#deploy-status')!.textContent).toBe('Deploying… · webhook · by dee');
    expect(el!.querySelector('#deploy')!.disabled).toBe(true);
  });

  it('says why the last deploy failed and offers another', () => {
    const el = renderDeploy(
      {
        status: 'merged',
        policy,
        deploy: { status: 'rolled_back', target: 'webhook', by: 'dee', startedAt: 'x', error: 'the deploy failed' },
      },
      { onDeploy: () => undefined },
    );
    expect(el!.querySelector('#deploy-status')!.textContent).toBe(
      'Deploy failed and was rolled back · webhook · by dee: the deploy failed',
    );
    expect(el!.querySelector('#deploy')!.textContent).toBe('Deploy again');
  });

  it('is absent before the merge', () => {
    expect(renderDeploy({ status: 'awaiting_approval', policy }, { onDeploy: () => undefined })).toBeNull();
  });

  it('is absent when the recorded policy configures no deploy (the button would only answer with an error)', () => {
    expect(renderDeploy({ status: 'merged', policy: {} }, { onDeploy: () => undefined })).toBeNull();
  });

  it('stays where no policy was recorded: the server deploys by the service policy then', () => {
    expect(renderDeploy({ status: 'merged' }, { onDeploy: () => undefined })).not.toBeNull();
  });
});

import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Forge } from './forge.ts';
import { tracedForge } from './traced-forge.ts';

/** A forge with private state, as GitHubForge has: the proxy must not be the `this` it sees. */
class PrivateForge {
  readonly name = 'private';
  readonly #base = 'https://git.example';
  cloneUrl(repo: string): string {
    return `${this.#base}/${repo}.git`;
  }
  async repositoryExists(repo: string): Promise<boolean> {
    return repo.startsWith(this.#base.slice(0, 0));
  }
  async closePullRequest(_repo: string, number: number): Promise<void> {
    if (number === 0) throw new RangeError(`no pull request 0 (token ghp_${'x'.repeat(36)})`);
  }
}

describe('tracedForge', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => {
    provider.register();
  });
  afterAll(() => provider.shutdown());

  it('spans every promise-returning call with its repository, passes computed answers through, keeps instanceof', async () => {
    const inner = new PrivateForge();
    const forge = tracedForge(inner as unknown as Forge);
    expect(forge).toBeInstanceOf(PrivateForge);
    expect(forge.cloneUrl('acme/api')).toBe('https://git.example/acme/api.git');
    expect(await forge.repositoryExists('acme/api')).toBe(true);
    await expect(forge.closePullRequest('acme/api', 0)).rejects.toThrow(RangeError);

    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => [s.name, s.attributes['pullwright.repo'], s.status.code])).toEqual([
      ['forge.repositoryExists', 'acme/api', 0],
      ['forge.closePullRequest', 'acme/api', 2],
    ]);
    // The error's class, never its message: messages can carry what the Redactor has not seen.
    expect(spans[1]!.status.message).toBe('RangeError');
    expect(JSON.stringify(spans.map((s) => [s.attributes, s.events, s.status]))).not.toContain('ghp_');
  });
});

import { createHmac, randomUUID } from 'node:crypto';

/** How long one HTTP call to a deploy target may take; the status poll has its own overall timeout. */
const REQUEST_TIMEOUT_MS = 15_000;

/**
 * `sha256=<hex>` of HMAC-SHA256 over `<timestamp>.<body>`: the receiver recomputes it with the
 * shared secret and rejects old timestamps, so a captured request cannot be replayed later.
 */
export function deploySignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

interface HookAnswer {
  /** The target's id for this deploy, when it returned one (`{"id": …}`). */
  id?: string;
  /** A terminal or intermediate state, when it returned one (`{"status": …}`). */
  state?: DeployState;
}

export type DeployState = 'pending' | 'success' | 'failure';

/** Maps the many spellings targets use (GitHub's, Railway's, ours) to three states. */
function normalizeState(value: unknown): DeployState | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.toLowerCase();
  if (['success', 'succeeded', 'deployed', 'active', 'done', 'complete', 'completed'].includes(v)) return 'success';
  if (['failure', 'failed', 'error', 'errored', 'crashed', 'cancelled', 'canceled', 'removed'].includes(v))
    return 'failure';
  if (['pending', 'queued', 'in_progress', 'building', 'deploying', 'initializing', 'running'].includes(v))
    return 'pending';
  return undefined;
}

export class DeployHookError extends Error {}

async function readAnswer(res: Response): Promise<HookAnswer> {
  const text = await res.text().catch(() => '');
  let json: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object') json = parsed as Record<string, unknown>;
  } catch {
    // A plain "OK" is a valid answer: triggered, nothing to follow.
  }
  const id = json.id ?? json.deploymentId;
  const state = normalizeState(json.status ?? json.state);
  return {
    ...(typeof id === 'string' || typeof id === 'number' ? { id: String(id) } : {}),
    ...(state ? { state } : {}),
  };
}

/**
 * POSTs to a deploy or rollback hook. Errors say what happened without the URL: hook URLs
 * (Railway's) carry their credential in the path.
 */
export async function callHook(
  url: string,
  payload: Record<string, unknown>,
  options: { secret?: string; event: 'deploy' | 'rollback'; label: string },
): Promise<HookAnswer> {
  const body = JSON.stringify(payload);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'pullwright',
    'x-pullwright-event': options.event,
    'x-pullwright-delivery': randomUUID(),
    'x-pullwright-timestamp': timestamp,
  };
  if (options.secret) headers['x-pullwright-signature-256'] = deploySignature(options.secret, timestamp, body);
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'error',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    throw new DeployHookError(`${options.label} unreachable (${cause})`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new DeployHookError(`${options.label} answered HTTP ${res.status}`);
  }
  return readAnswer(res);
}

/** GETs a status URL and reads `{status}` from it; an unreadable answer is still pending. */
export async function pollStatus(url: string, label: string): Promise<DeployState> {
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { accept: 'application/json', 'user-agent': 'pullwright' },
      redirect: 'error',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch {
    return 'pending';
  }
  if (!res.ok) {
    await res.body?.cancel();
    if (res.status >= 500 || res.status === 404) return 'pending';
    throw new DeployHookError(`${label} status answered HTTP ${res.status}`);
  }
  return (await readAnswer(res)).state ?? 'pending';
}

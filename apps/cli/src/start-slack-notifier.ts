import { createSlackServices } from '@pullwright/api';
import type { Runtime } from '@pullwright/pipeline';

/** Posts progress of Slack-started operations; runs beside the API that takes the Slack requests. */
export function startSlackNotifier(runtime: Runtime): { close(): Promise<void> } | undefined {
  const notifier = createSlackServices(runtime)?.createNotifier();
  notifier?.start();
  return notifier;
}

import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadReplayTranscript, type ModelProvider, ReplayProvider } from '@pullwright/agent';
import { PullwrightError } from '@pullwright/core';
import type { ModelSubject } from '@pullwright/pipeline';

const FILE_SAFE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/**
 * Recorded model conversations for evaluation attempts (`eval run --replay <dir>`): attempt
 * `k` of task `id` plays `<dir>/<id>.<k>.replay.json`, else `<dir>/<id>.replay.json`. What
 * CI runs instead of a model; a recording with per-turn usage under a priced model's name
 * costs what it cost when it was recorded. Anything that is not an evaluation attempt is refused.
 */
export function replayRecordings(dir: string): (subject: ModelSubject) => ModelProvider {
  return (subject) => {
    const attempt = subject.eval;
    if (!attempt || !FILE_SAFE.test(attempt.instance))
      throw new PullwrightError('config_invalid', 'eval --replay recordings answer evaluation attempts only');
    const names = [`${attempt.instance}.${attempt.attempt}.replay.json`, `${attempt.instance}.replay.json`];
    const file = names.map((n) => path.join(dir, n)).find((f) => existsSync(f));
    if (!file)
      throw new PullwrightError('config_invalid', `no recording for ${attempt.instance} (${names.join(' or ')})`);
    return new ReplayProvider(loadReplayTranscript(file));
  };
}

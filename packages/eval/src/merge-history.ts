import { gitClient } from '@pullwright/workspace';
import type { ChangeCandidate } from './change-candidate.ts';

/** A commit message that says it fixes something (a squashed or direct fix on the branch). */
const FIX_MESSAGE = /\b(fix(e[sd])?|bug|regression|crash(es|ed)?|broken)\b/i;
/** The first line git (or a forge) writes on a merge; what follows it, if anything, is the PR's own text. */
const MERGE_SUBJECT = /^Merge (branch|pull request|remote-tracking branch|tag) /;
/** GitHub's merge subject names the PR: the task is then named by its number, as the GitHub source names it. */
const PULL_REQUEST_SUBJECT = /^Merge pull request #(\d+) /;

/**
 * Candidates from a branch's own history (the local forge, or any mirror): newest first along
 * the first-parent line, every merge (its base is the first parent, its problem the merge
 * message without git's "Merge branch…" line, else the merged commits' messages; named by its
 * PR number when the message has one, else its short sha) and every single commit whose
 * message says it fixes something.
 */
export async function mergeHistory(mirror: string, branch: string, since?: Date): Promise<ChangeCandidate[]> {
  const git = gitClient(mirror);
  const log = await git.raw([
    'log',
    '--first-parent',
    '--format=%H%x00%P%x00%cI%x00%B%x1e',
    ...(since ? [`--since=${since.toISOString()}`] : []),
    `refs/remotes/origin/${branch}`,
    '--',
  ]);
  const out: ChangeCandidate[] = [];
  for (const record of log.split('\x1e')) {
    const [sha, parentList, mergedAt, message] = record.replace(/^\n/, '').split('\0');
    if (!sha || !parentList || !mergedAt || message === undefined) continue;
    const parents = parentList.split(' ');
    const base = parents[0]!;
    if (parents.length > 1) {
      const own = message
        .trim()
        .replace(MERGE_SUBJECT.test(message) ? /^.*(\n|$)/ : /^$/, '')
        .trim();
      const problem = own || (await git.raw(['log', '--format=%B', `${base}..${parents[1]}`])).trim();
      const id = PULL_REQUEST_SUBJECT.exec(message)?.[1] ?? sha.slice(0, 12);
      out.push({ id, baseSha: base, mergeSha: sha, problem, mergedAt });
    } else if (FIX_MESSAGE.test(message.split('\n')[0] ?? '')) {
      out.push({ id: sha.slice(0, 12), baseSha: base, mergeSha: sha, problem: message.trim(), mergedAt });
    }
  }
  return out;
}

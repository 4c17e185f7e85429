/**
 * Is this one path component a name some filesystem resolves to `.git`? Mirrors git's own
 * checks (`is_ntfs_dotgit`, `is_hfs_dotgit` in git's path.c / utf8.c), which exist because
 * each of these spellings has been used to plant hooks in a repository:
 *   - any case: `.GIT`, `.Git` (case-insensitive filesystems: macOS, Windows)
 *   - NTFS: trailing dots and spaces are dropped (`.git.`, `.git ` ), `:` starts an
 *     alternate data stream (`.git::$INDEX_ALLOCATION`), and 8.3 short names (`GIT~1`)
 *   - HFS+: "ignorable" Unicode code points are dropped (`.g\u200Cit`)
 *   - Unicode lookalikes that NFKC folds to ASCII (`．ｇｉｔ`), for filesystems and tools
 *     that normalise names.
 */
const HFS_IGNORABLE = /[\u200C-\u200F\u202A-\u202E\u206A-\u206F\uFEFF]/g;

export function isDotGitName(component: string): boolean {
  const folded = component.normalize('NFKC').replace(HFS_IGNORABLE, '').toLowerCase();
  const stream = folded.indexOf(':');
  const name = (stream >= 0 ? folded.slice(0, stream) : folded).replace(/[. ]+$/, '');
  if (name === '.git') return true;
  // 8.3 short names: "GIT~1" for ".git", and git's rule for "~1".."~4".
  if (/^git~[1-4]$/.test(name)) return true;
  // `.git~` is how editors and some tools move a repository directory aside: still git data.
  return name.startsWith('.git~');
}

/**
 * What the model reads when a filesystem call inside a tool fails: the path it gave, what is
 * wrong in words, and the fix, so its next call can succeed. A tool never throws a
 * filesystem error out of the agent loop: one wrong path must not end the operation.
 * Absolute paths of the worker never appear (the worktree root is cut from any message).
 */
export function toolErrorMessage(
  tool: string,
  rel: string | undefined,
  err: NodeJS.ErrnoException,
  root: string,
): string {
  const target = rel ? `\`${rel}\`` : 'that path';
  switch (err.code) {
    case 'ENOENT':
      return `${target} does not exist. Check the path with list_dir or search.`;
    case 'ENOTDIR':
      return tool === 'list_dir'
        ? `${target} is a file: use read_file.`
        : `${target} goes through a file as if it were a directory. Check the path with list_dir.`;
    case 'EISDIR':
      return tool === 'write_file' || tool === 'edit_file'
        ? `${target} is a directory: name a file inside it.`
        : `${target} is a directory: use list_dir.`;
    case 'ENAMETOOLONG':
      return `${target} is too long (a name over 255 bytes or a path over 4096): use a shorter name.`;
    case 'ELOOP':
      return `${target} is a loop of symbolic links: use the real path of the file.`;
    case 'EACCES':
    case 'EPERM':
      return `${target} cannot be ${tool === 'list_dir' || tool === 'read_file' || tool === 'search' ? 'read' : 'changed'} here (permission denied): choose another file.`;
    case 'EROFS':
      return `${target} is on a read-only file system: it cannot be changed.`;
    case 'EEXIST':
      // write_file creates the parent directories: EEXIST there means one of them is a file.
      return tool === 'write_file'
        ? `${target} goes through a file as if it were a directory. Check the path with list_dir.`
        : `${target} already exists: use edit_file to change it.`;
    case 'ENOTEMPTY':
      return `${target} is a directory that is not empty: delete its files one by one.`;
    case 'EINVAL':
      return `${target} is not a valid path: use a plain relative path.`;
    case 'ENOSPC':
    case 'EDQUOT':
    case 'EFBIG':
      return `No space left to write ${target}: write less.`;
    case 'EMFILE':
    case 'ENFILE':
    case 'EBUSY':
    case 'EAGAIN':
      return `${target} is busy right now (${err.code}): try the call again.`;
    default:
      return `${tool} failed on ${target}: ${(err.message ?? String(err)).split(root).join('.')}`;
  }
}

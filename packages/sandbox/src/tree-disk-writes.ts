import { readdir, readFile } from 'node:fs/promises';

function ioField(io: string, name: string): number {
  const match = new RegExp(`^${name}: (\\d+)$`, 'm').exec(io);
  return match ? Number(match[1]) : 0;
}

/**
 * Bytes a process tree has put on disk so far: the sum over its live processes of
 * `write_bytes - cancelled_write_bytes` from /proc/<pid>/io. The kernel counts a byte when its
 * page is dirtied (so a write is seen at once, not at writeback), not for tmpfs (the sandbox's
 * /tmp is bounded by its size), and adds a reaped child's counts to its parent's, so a
 * process that wrote and exited is still counted. A file written then deleted before
 * writeback cancels out, as it never used the disk. Undefined when /proc cannot tell (not
 * Linux, or accounting compiled out).
 */
export async function treeDiskWrites(rootPid: number): Promise<number | undefined> {
  let total = 0;
  let readable = false;
  const seen = new Set<number>();
  const pending = [rootPid];
  while (pending.length > 0) {
    const pid = pending.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const io = await readFile(`/proc/${pid}/io`, 'utf8').catch(() => undefined);
    if (io === undefined) continue;
    readable = true;
    total += Math.max(0, ioField(io, 'write_bytes') - ioField(io, 'cancelled_write_bytes'));
    for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [])) {
      const children = await readFile(`/proc/${pid}/task/${tid}/children`, 'utf8').catch(() => '');
      for (const child of children.split(' ')) if (child.trim()) pending.push(Number(child));
    }
  }
  return readable ? total : undefined;
}

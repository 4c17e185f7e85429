/**
 * How much one file tool call may read or write (seed 001, "Size limits: Max 1MB read, 500KB
 * write per operation"). A file written by a check can be any size, and a model can ask for any
 * size: a 200 MB edit blocked a worker's event loop for 12.8 s, 600 MB aborted the model loop.
 */
export const FILE_SIZE_LIMITS = Object.freeze({
  /** Bytes a read (read_file, a file search scans, the file an edit starts from) may be. */
  readBytes: 1024 * 1024,
  /** Bytes a write or an edit's result may be. */
  writeBytes: 500 * 1024,
});

/** "500 KB", "1 MB": the unit the limits are stated in. */
export function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0
    ? `${bytes / (1024 * 1024)} MB`
    : `${Math.round(bytes / 1024)} KB`;
}

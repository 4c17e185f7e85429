/** One artifact as read back: its text, and whether the size cap cut it short. */
export interface Artifact {
  content: string;
  truncated: boolean;
}

/**
 * Where the files an operation produces live (transcripts, the diff kept when work is cut
 * short): shared storage every process reaches, never one process's disk. Redis implements
 * it today (RedisArtifactStore); an object store can implement the same four calls.
 */
export interface ArtifactStore {
  /** Adds text to the end of an artifact (a transcript grows a line at a time). */
  append(opId: string, name: string, text: string): Promise<void>;
  /** Replaces an artifact's content. */
  put(opId: string, name: string, content: string): Promise<void>;
  read(opId: string, name: string): Promise<Artifact | undefined>;
  /** The names of the operation's artifacts. */
  names(opId: string): Promise<string[]>;
}

/** Artifact names: a file name, no paths (they become URL segments and download names). */
export const ARTIFACT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** The operation's model transcript (JSONL), read by the dashboard, REST, CLI and the audit export. */
export const TRANSCRIPT_ARTIFACT = 'transcript.jsonl';
/** The unpushed diff saved when an operation stops before it could publish. */
export const KEPT_DIFF_ARTIFACT = 'kept.diff';
/** An evaluation attempt's change (a binary-safe diff against its base), kept for grading instead of a push. */
export const EVAL_CHANGE_ARTIFACT = 'eval-change.diff';

/**
 * The order an operation's artifacts are listed in: the numbered run record first, by
 * number (the order things happened), then the rest by name.
 */
export function sortArtifactNames(names: readonly string[]): string[] {
  const number = (n: string) => Number(/^(\d+)-/.exec(n)?.[1] ?? Number.POSITIVE_INFINITY);
  return [...names].sort((a, b) => number(a) - number(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** Appends to one artifact: the shape the agent's TranscriptWriter writes to. */
export function artifactAppender(
  store: ArtifactStore,
  opId: string,
  name: string,
): { append(text: string): Promise<void> } {
  return { append: (text) => store.append(opId, name, text) };
}

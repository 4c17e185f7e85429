/** The first non-empty line of an error or a reason, at most 300 characters: what a report's detail shows. */
export function firstLine(text: unknown): string {
  return (
    String((text as Error)?.message ?? text)
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean)
      ?.slice(0, 300) ?? ''
  );
}

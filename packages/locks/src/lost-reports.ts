/**
 * Test helper: collects what a keeper reports lost, and a promise of the first report, so a
 * test waits for the report itself instead of sleeping through a guessed number of renewals.
 */
export function lostReports(): { lost: string[][]; onLost: (paths: string[]) => void; first: Promise<void> } {
  const lost: string[][] = [];
  let markFirst = () => {};
  const first = new Promise<void>((resolve) => {
    markFirst = resolve;
  });
  return {
    lost,
    onLost: (paths) => {
      lost.push(paths);
      markFirst();
    },
    first,
  };
}

/** Line numbers and line texts of offsets in a text; the line table is built on first use. */
export interface LineIndex {
  lineOf(offset: number): number;
  lineText(offset: number): string;
}

export function lineIndex(text: string): LineIndex {
  let starts: number[] | undefined;
  const build = (): number[] => {
    const s = [0];
    for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) s.push(at + 1);
    return s;
  };
  const find = (offset: number): number => {
    starts ??= build();
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  return {
    lineOf: (offset) => find(offset) + 1,
    lineText: (offset) => {
      const i = find(offset);
      const start = starts![i]!;
      const next = starts![i + 1];
      return text.slice(start, next === undefined ? text.length : next - 1);
    },
  };
}

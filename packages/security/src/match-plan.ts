/**
 * Runs a rule's regex with the same results as `regex.exec` in a global loop, faster when
 * the pattern starts with a lazy, optional prefix — gitleaks' generated rules all begin
 * with `[\w.-]{0,50}?` before their keyword alternation.
 *
 * Such a prefix defeats the regex engine's literal scanning: at every position it tries up
 * to 50 prefix lengths before failing (measured: 10× slower than the same pattern without
 * it). Exact equivalent: search for the rest R of the pattern alone; its leftmost match
 * at t is where the full pattern's body matches too (a full match at s uses the smallest
 * k with R matching at s + k, and no R match exists before t), and the full match starts
 * at the smallest s ≥ max(t − n, previous match end) with every character in [s, t)
 * accepted by the prefix atom. Patterns with a top-level `|` are run as they are, since
 * the prefix binds to the first alternative only.
 */
interface PlannedMatch {
  /** The exec result of the pattern (without prefix); capture group numbering is unchanged. */
  m: RegExpExecArray;
  /** Start of the full match in the searched string. */
  start: number;
  /** Text of the full match, prefix included. */
  text: string;
}

const LAZY_PREFIX = /^(\[(?:\\.|[^\]\\])*\]|\\[wdsWDS]|\.)(?:\{0,(\d+)\}\?|\*\?)/;

function hasTopLevelAlternation(source: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) return true;
  }
  return false;
}

/**
 * The strings a pattern's leading group can start with, lower-cased, when that group is
 * simple enough to enumerate (literals, `[xX]` case pairs, nested groups, optional `?`);
 * undefined otherwise. Used to prove that every match begins at a keyword.
 */
export function leadingLiterals(source: string, limit = 64): string[] | undefined {
  let i = 0;
  const alternatives = (): string[] | undefined => {
    let all: string[] = [];
    let current: string[] = [''];
    for (;;) {
      const c = source[i];
      if (c === undefined) return undefined;
      if (c === ')') {
        i++;
        all = all.concat(current);
        return all.length > limit ? undefined : all;
      }
      if (c === '|') {
        i++;
        all = all.concat(current);
        current = [''];
        continue;
      }
      let piece: string[] | undefined;
      if (source.startsWith('(?:', i)) {
        i += 3;
        piece = alternatives();
      } else if (c === '[') {
        const m = /^\[([a-zA-Z])([a-zA-Z])\]/.exec(source.slice(i));
        if (!m || m[1]!.toLowerCase() !== m[2]!.toLowerCase()) return undefined;
        piece = [m[1]!.toLowerCase()];
        i += 4;
      } else if (c === '\\') {
        const e = source[i + 1];
        if (e === undefined || /[a-zA-Z0-9]/.test(e)) return undefined;
        piece = [e];
        i += 2;
      } else if (/[a-zA-Z0-9_\-:/]/.test(c)) {
        piece = [c.toLowerCase()];
        i++;
      } else {
        return undefined;
      }
      if (!piece) return undefined;
      if (source[i] === '?') {
        i++;
        piece = [...piece, ''];
      } else if (/[*+{]/.test(source[i] ?? '')) {
        return undefined;
      }
      current = current.flatMap((head) => piece!.map((tail) => head + tail));
      if (current.length > limit) return undefined;
    }
  };
  if (!source.startsWith('(?:')) return undefined;
  i = 3;
  const out = alternatives();
  // A quantified leading group can be skipped or repeated: nothing is proven then.
  return out && !/[?*+{]/.test(source[i] ?? '') ? out : undefined;
}

export class MatchPlan {
  /**
   * Every match of the searched pattern starts at one of the rule's keywords, so a search
   * may begin at the first keyword hit instead of at the start of the window.
   */
  readonly keywordAnchored: boolean;
  readonly #full: RegExp;
  readonly #body: RegExp | undefined;
  readonly #prefixMax: number;
  readonly #prefixAtom: RegExp | undefined;
  readonly #asciiAccept = new Uint8Array(128);

  constructor(regex: RegExp, keywords: readonly string[] = []) {
    this.#full = regex;
    const m = LAZY_PREFIX.exec(regex.source);
    const rest = m ? regex.source.slice(m[0].length) : '';
    if (m && rest !== '' && !/^[*+?{]/.test(rest) && !hasTopLevelAlternation(rest)) {
      this.#body = new RegExp(rest, regex.flags);
      this.#prefixMax = m[2] === undefined ? Number.POSITIVE_INFINITY : Number(m[2]);
      const flags = regex.flags.replace(/[gdy]/g, '');
      this.#prefixAtom = new RegExp(`^${m[1]}$`, flags);
      for (let c = 0; c < 128; c++) this.#asciiAccept[c] = this.#prefixAtom.test(String.fromCharCode(c)) ? 1 : 0;
    } else {
      this.#prefixMax = 0;
    }
    const searched = this.#body ?? regex;
    const literals = keywords.length > 0 ? leadingLiterals(searched.source) : undefined;
    this.keywordAnchored =
      literals !== undefined &&
      (searched.flags.includes('i') || literals.length > 0) &&
      literals.every((l) => keywords.some((k) => l.startsWith(k)));
  }

  #accepts(code: number): boolean {
    if (code < 128) return this.#asciiAccept[code] === 1;
    return this.#prefixAtom!.test(String.fromCharCode(code));
  }

  /**
   * Calls `onMatch` for each non-empty match, left to right, as a global exec loop would.
   * `searchFrom` > 0 is only valid for a keywordAnchored plan, with no keyword before it.
   */
  forEach(input: string, onMatch: (match: PlannedMatch) => void, searchFrom = 0): void {
    const body = this.#body;
    if (!body) {
      const full = this.#full;
      full.lastIndex = searchFrom;
      for (let m = full.exec(input); m !== null; m = full.exec(input)) {
        if (m[0].length === 0) {
          full.lastIndex++;
          continue;
        }
        onMatch({ m, start: m.index, text: m[0] });
      }
      return;
    }
    body.lastIndex = searchFrom;
    let floor = 0;
    for (let m = body.exec(input); m !== null; m = body.exec(input)) {
      const end = m.index + m[0].length;
      let start = m.index;
      const limit = Math.max(floor, m.index - this.#prefixMax);
      while (start > limit && this.#accepts(input.charCodeAt(start - 1))) start--;
      if (m[0].length === 0) {
        // The full pattern's lazy prefix would match nothing here too: an empty match, skipped.
        body.lastIndex++;
        continue;
      }
      floor = end;
      onMatch({ m, start, text: input.slice(start, end) });
    }
  }
}

/**
 * Views of a text in which a credential split into pieces reads whole again, each with the
 * way back to the original offsets (so a finding keeps its line). Every view is at most a
 * small multiple of the text's size: the scan stays linear.
 */

/**
 * A derived text, and for each of its parts where it came from in its parent (or the
 * original): [viewOffset, parentOffset], ascending.
 */
export interface TextView {
  text: string;
  map: Array<[number, number]>;
  parent?: TextView;
}

/** The original offset of `offset` in a view. */
export function originalOffset(view: TextView, offset: number): number {
  const local = parentOffset(view, offset);
  return view.parent ? originalOffset(view.parent, local) : local;
}

function parentOffset(view: TextView, offset: number): number {
  let lo = 0;
  let hi = view.map.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (view.map[mid]![0] <= offset) lo = mid;
    else hi = mid - 1;
  }
  const [from, to] = view.map[lo]!;
  return to + (offset - from);
}

/** `text` (or a view's text) with the matches of `pattern` removed. */
export function withoutMatches(source: string | TextView, pattern: RegExp): TextView {
  const text = typeof source === 'string' ? source : source.text;
  const parent = typeof source === 'string' ? {} : { parent: source };
  const parts: string[] = [];
  const map: Array<[number, number]> = [[0, 0]];
  let cursor = 0;
  let length = 0;
  for (const m of text.matchAll(pattern)) {
    parts.push(text.slice(cursor, m.index));
    length += m.index - cursor;
    cursor = m.index + m[0].length;
    map.push([length, cursor]);
  }
  if (map.length === 1) return { text, map, ...parent };
  parts.push(text.slice(cursor));
  return { text: parts.join(''), map, ...parent };
}

/**
 * A string literal's closing quote, glue, and the next literal's opening quote, on one line or
 * over a line break: `"ghp_ab" + "cd…"`, `"ab"⏎ "cd"` (Python, C), PHP's `.`, VB's `&`, Lua's
 * `..`, a `+` at the start of the next line.
 */
export const CONCATENATION =
  /(["'`])(?=[ \t+.&\r\n])[ \t]*(?:\+|\.\.?|&)?[ \t]*(?:\r?\n[ \t]*(?:\+|\.\.?|&)?[ \t]*)?\1/g;

/** A backslash-newline continuation inside a string or a shell line. */
export const CONTINUATION = /\\\r?\n[ \t]*/g;

/** Characters a credential (or its base64/hex/percent encoding) is made of. */
const TOKEN_PIECE = /^[A-Za-z0-9_\-+/=.~%:]+$/;
/**
 * Two or more lower-case words joined by `-`, `_` or `.` (`gitlab-runner-token`,
 * `api_version`): a name, never part of a random token, so it ends a run of pieces (a
 * prefix literal next to a rule id in a table is not a token).
 */
const NAME_PIECE = /^[a-z]{2,}(?:[-_.][a-z]{2,})+$/;
/** Pieces joined per window by default: enough for a key split in three or four. */
const MAX_PIECES = 4;
/** A joined window longer than this is no single credential (the longest provider tokens are ~250 characters). */
const MAX_JOINED = 400;

interface Piece {
  at: number;
  text: string;
  /** False: the piece may start a run but not continue one (a line's last word before a wrapped value). */
  continues?: boolean;
}

/**
 * Within each group, every run of up to MAX_PIECES consecutive pieces joined, one per line,
 * each line mapped to its first piece: a key split into neighbouring string literals
 * (`a = "ghp_ab"; b = "cd…"`) or words (`ghp_ab cd…`) reads whole on one of the lines. Only
 * pieces made of token characters take part, and with `keywordRanges` only windows that can
 * hold a rule's keyword (one that holds none cannot match: skipping it keeps prose cheap).
 */
export function joinedPieces(
  groups: ReadonlyArray<readonly Piece[]>,
  maxPieces = MAX_PIECES,
  keywordRanges?: (text: string) => Array<[number, number]>,
): TextView {
  const lines: string[] = [];
  const map: Array<[number, number]> = [];
  let length = 0;
  for (const pieces of groups) {
    const worth = worthReading(pieces, maxPieces, keywordRanges);
    // Decided once per piece, and only for pieces a window can use.
    const usable: Array<boolean | undefined> = [];
    const usableAt = (at: number): boolean => {
      const p = pieces[at]!;
      usable[at] ??=
        p.text.length > 0 && p.text.length <= MAX_JOINED && TOKEN_PIECE.test(p.text) && !NAME_PIECE.test(p.text);
      return usable[at];
    };
    for (let i = 0; i + 1 < pieces.length; i++) {
      if (!worth[i] || !usableAt(i)) continue;
      let joined = pieces[i]!.text;
      for (let k = i + 1; k < Math.min(pieces.length, i + maxPieces); k++) {
        if (pieces[k]!.continues === false || !usableAt(k)) break;
        joined += pieces[k]!.text;
        if (joined.length > MAX_JOINED) break;
        // A breakpoint per piece, so an offset anywhere in the line maps into its own piece.
        let at = length;
        for (let j = i; j <= k; j++) {
          map.push([at, pieces[j]!.at]);
          at += pieces[j]!.text.length;
        }
        lines.push(joined);
        length += joined.length + 1;
      }
    }
  }
  return { text: lines.join('\n'), map: map.length > 0 ? map : [[0, 0]] };
}

/**
 * For each piece, whether a window starting there can hold a keyword: one pass of the
 * prefilter over all pieces joined (a keyword split between two pieces is found there too),
 * then every piece up to `maxPieces - 1` before a keyword's last piece may start a window that
 * reaches it. Without `keywordRanges`, every piece may.
 */
function worthReading(
  pieces: readonly Piece[],
  maxPieces: number,
  keywordRanges: ((text: string) => Array<[number, number]>) | undefined,
): boolean[] {
  if (!keywordRanges) return pieces.map(() => true);
  const ends: number[] = [];
  let length = 0;
  for (const p of pieces) {
    length += p.text.length;
    ends.push(length);
  }
  const worth = pieces.map(() => false);
  let piece = 0;
  for (const [start, end] of keywordRanges(pieces.map((p) => p.text).join('')).sort((a, b) => a[0] - b[0])) {
    while (piece < pieces.length && ends[piece]! <= start) piece++;
    let last = piece;
    while (last < pieces.length - 1 && ends[last]! < end) last++;
    for (let i = Math.max(0, last - maxPieces + 1); i <= piece; i++) worth[i] = true;
  }
  return worth;
}

/**
 * A quoted string literal's content (no escapes, no line breaks), up to MAX_JOINED
 * characters; a template literal without substitutions (the literals inside `${…}` are read
 * on their own).
 */
const STRING_LITERAL = /"([^"\\\n]{1,400})"|'([^'\\\n]{1,400})'|`([^`\\\n$]{1,400})`/g;
/** How far apart two literals may be and still be read as one value (two declarations in a row). */
const MAX_LITERAL_GAP = 160;

/**
 * The string literals of a source text, grouped into neighbours: a key split over two
 * variables with neutral names (`const a = "ghp_ab"; const b = "cd…";`) or an array
 * (`["ghp_ab", "cd…"].join("")`) is read joined.
 */
export function literalPieces(text: string): Piece[][] {
  const groups: Piece[][] = [];
  let group: Piece[] = [];
  let end = -1;
  for (const m of text.matchAll(STRING_LITERAL)) {
    const content = m[1] ?? m[2] ?? m[3] ?? '';
    if (end >= 0 && m.index - end > MAX_LITERAL_GAP) {
      if (group.length > 1) groups.push(group);
      group = [];
    }
    group.push({ at: m.index + 1, text: content });
    end = m.index + m[0].length;
  }
  if (group.length > 1) groups.push(group);
  return groups;
}

/** Characters of tokens and of their base64, hex and percent encodings (`%` too: a wrapped `%67%68…` run joins). */
const isTokenChar = (c: number): boolean =>
  c === 37 ||
  (c >= 48 && c <= 57) ||
  (c >= 65 && c <= 90) ||
  (c >= 97 && c <= 122) ||
  c === 95 ||
  c === 45 ||
  c === 43 ||
  c === 47 ||
  c === 61 ||
  c === 46;
/**
 * A comment marker at the start of a line's content: `//`, `#`, `--`, `;`, `*`, `%`, `'`, `REM `.
 * Not a `%` that starts a percent escape (`%67%68…`, a wrapped URL-encoded run).
 */
const COMMENT_MARKER = /^(?:\/\/+|#+|--+|;+|\*+|%+(?![0-9A-Fa-f]{2})|'|[Rr][Ee][Mm](?= ))[ \t]*/;

/**
 * Each line's last run of token characters (after its indentation and comment marker), and
 * whether that run is the whole line: a key hard-wrapped over lines (`// ghp_ab⏎// cd…`, a
 * block scalar, `token: ghp_ab⏎  cd…`) reads whole when the runs are joined; a run can
 * start on a line with other text before it, but only whole lines continue it, so the line
 * after the key (`run();`) stays out. One pass, no regex per line.
 */
export function linePieces(text: string): Piece[] {
  const pieces: Piece[] = [];
  let start = 0;
  while (start <= text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    let last = end;
    while (
      last > start &&
      (text.charCodeAt(last - 1) === 32 || text.charCodeAt(last - 1) === 9 || text.charCodeAt(last - 1) === 13)
    )
      last--;
    let first = start;
    while (first < last && (text.charCodeAt(first) === 32 || text.charCodeAt(first) === 9)) first++;
    const marker = COMMENT_MARKER.exec(text.slice(first, Math.min(last, first + 8)));
    if (marker) first += marker[0].length;
    let run = last;
    while (run > first && isTokenChar(text.charCodeAt(run - 1))) run--;
    pieces.push({ at: run, text: text.slice(run, last), continues: run === first });
    if (nl < 0) break;
    start = nl + 1;
  }
  return pieces;
}

/**
 * Runs of whole token lines (two or more), each joined whole on a line of its own, with the
 * line before them when it ends in token characters: a base64 or hex blob wrapped at any
 * width decodes as one.
 */
export function lineBlocks(pieces: readonly Piece[]): TextView {
  const lines: string[] = [];
  const map: Array<[number, number]> = [];
  let length = 0;
  for (let i = 0; i < pieces.length; i++) {
    let k = i + 1;
    while (k < pieces.length && pieces[k]!.continues !== false && pieces[k]!.text !== '') k++;
    if (k - i >= 2 && pieces[i]!.text !== '') {
      let at = length;
      for (let j = i; j < k; j++) {
        map.push([at, pieces[j]!.at]);
        at += pieces[j]!.text.length;
      }
      const block = pieces
        .slice(i, k)
        .map((p) => p.text)
        .join('');
      lines.push(block);
      length += block.length + 1;
      i = k - 1;
    }
  }
  return { text: lines.join('\n'), map: map.length > 0 ? map : [[0, 0]] };
}

/** How a text splits into the words a key may have been cut between. */
export type WordSplit = 'prose' | 'path';

const PROSE_CHAR = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.~%:')
  PROSE_CHAR[c.charCodeAt(0)] = 1;
const PATH_CHAR = PROSE_CHAR.slice();
PATH_CHAR['/'.charCodeAt(0)] = 0;

/**
 * The words of a text with their offsets: in prose (commit messages, PR text, comments, Slack)
 * the runs of characters a credential is made of, so spaces, line breaks, quotes, commas and
 * brackets all separate words (a key split inside a JSON string reads joined too); in a
 * branch or path, also `/`. A word's trailing `.` and `:` (sentence punctuation) are dropped.
 * One pass over the text, no regex: the Redactor runs this on every log line.
 */
export function splitPieces(text: string, split: WordSplit): Piece[] {
  const inWord = split === 'path' ? PATH_CHAR : PROSE_CHAR;
  const pieces: Piece[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0;
    if (c < 128 && inWord[c] === 1) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      let end = i;
      while (end > start && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 58)) end--;
      if (end > start) pieces.push({ at: start, text: text.slice(start, end) });
      start = -1;
    }
  }
  return pieces;
}

import { type ContentReading, contentTexts } from './content-texts.ts';
import { derPrivateKeyKind } from './der-private-key.ts';
import { decodedRuns, type RunEncoding } from './encoded-runs.ts';
import {
  CONCATENATION,
  CONTINUATION,
  joinedPieces,
  lineBlocks,
  linePieces,
  literalPieces,
  originalOffset,
  splitPieces,
  type TextView,
  type WordSplit,
  withoutMatches,
} from './joined-views.ts';
import { lineIndex } from './line-index.ts';
import { previewSecret, type SecretScanner, type SecretSpan } from './secret-scanner.ts';

/**
 * How a finding's text was derived from the scanned content: decoded (`base64`, `hex`,
 * `url`), pieces `joined`, read out of a binary (`strings`), a UTF-16 or gzip file (`utf16`,
 * `gzip`), or a binary file's own bytes (`der`).
 */
export type SecretEncoding = RunEncoding | ContentReading | 'joined' | 'der';

/** The rule id of a private key found by its ASN.1 structure rather than by a text rule. */
export const DER_PRIVATE_KEY_RULE = 'private-key-der';

/** A finding in some content: never the secret itself, at most its first 4 characters. */
export interface DeepFinding {
  ruleId: string;
  /** 1-based line in the scanned content (of the encoded run or of the first joined piece). */
  line: number;
  preview: string;
  /** Absent when the secret was in the content as it is. */
  via?: SecretEncoding;
}

/**
 * A finding with the secret it is about. Only for comparing two versions of a content (is
 * this secret new?): it must never be logged, stored or shown.
 */
export interface DeepDetection extends DeepFinding {
  secret: string;
  /**
   * Where it sits in the scanned text (for bytes, in the text read from them): from the start
   * of its first piece to the end of its last, or the whole encoded run.
   */
  start: number;
  end: number;
}

interface DeepScanOptions {
  /**
   * The content is prose (commit messages, PR text, comments, Slack) or a branch or path,
   * whose words a key may have been cut between: each run of up to four neighbouring words
   * is also read joined.
   */
  words?: WordSplit;
}

/** [start, end) in the scanned text. */
type Span = [number, number];

/** Nested encodings (base64 of hex of …) are followed this deep. */
const MAX_DEPTH = 2;
/** Lines joined per window: a 100-character key hard-wrapped at 12 characters spans 9 lines. */
const MAX_LINES = 12;
/** Around a join, how far an encoded run is looked for (the longest credential's base64 is ~600 characters). */
const JOIN_REACH = 800;

/**
 * Everything a publish can carry in one piece of content, scanned: the text as it is (a
 * UTF-16 or gzip file decoded, a binary by its printable strings); base64, base64url, hex
 * and percent-encoded runs decoded (nested up to twice, gzip inside inflated); strings
 * concatenated on a line or over lines joined; tokens hard-wrapped over lines or continued
 * on the next comment line joined; neighbouring string literals joined (a key split over two
 * variables); and, with `words`, neighbouring words joined. Joined and wrapped views run the
 * provider rules only (generic rules would read unrelated pieces as one assignment).
 * `scanner.spans` does the matching, so rules, allowlists and the prefilter are the
 * scanner's own.
 */
export function deepScan(
  scanner: SecretScanner,
  content: string | Uint8Array,
  file: string,
  options: DeepScanOptions = {},
): DeepFinding[] {
  return deepDetect(scanner, content, file, options).map(({ secret: _s, start: _a, end: _b, ...finding }) => finding);
}

/** `deepScan` with each finding's secret, for telling new secrets from ones already there. */
export function deepDetect(
  scanner: SecretScanner,
  content: string | Uint8Array,
  file: string,
  options: DeepScanOptions = {},
): DeepDetection[] {
  const out: DeepDetection[] = [];
  const texts = typeof content === 'string' ? [{ text: content, specificOnly: false }] : contentTexts(content);
  for (const t of texts) detectInText(scanner, t.text, file, t.specificOnly, t.via, options, out);
  // A key file stored as DER: the binary's own bytes are the key.
  if (typeof content !== 'string' && texts.some((t) => t.via === 'strings') && derPrivateKeyKind(content)) {
    out.push({ ruleId: DER_PRIVATE_KEY_RULE, line: 1, preview: '', via: 'der', secret: '', start: 0, end: 0 });
  }
  return out;
}

/**
 * Where credentials split between words sit in a text (a key cut by a space or a line
 * break), each from its first piece to its last: what the Redactor masks beyond the raw
 * shapes, so no piece of a split key is left in a log line or message.
 */
export function splitSecretSpans(scanner: SecretScanner, text: string): SecretSpan[] {
  const specific = scanner.specific();
  const view = joinedPieces([splitPieces(text, 'prose')], undefined, (t) => specific.keywordRanges(t));
  if (view.text === '') return [];
  // A longer window re-reads the same key with the next word glued on (a variable-length
  // format accepts it): per start, the shortest window that matches is the key.
  const shortest = new Map<string, SecretSpan>();
  for (const s of specific.spans(view.text, '')) {
    const span = { ruleId: s.ruleId, start: originalOffset(view, s.start), end: originalOffset(view, s.end - 1) + 1 };
    const key = `${s.ruleId}\0${span.start}`;
    const known = shortest.get(key);
    if (!known || span.end < known.end) shortest.set(key, span);
  }
  return [...shortest.values()];
}

function detectInText(
  scanner: SecretScanner,
  text: string,
  file: string,
  specificOnly: boolean,
  base: SecretEncoding | undefined,
  options: DeepScanOptions,
  out: DeepDetection[],
): void {
  const lines = lineIndex(text);
  const seen = new Set<string>();
  const seenLines = new Set<string>();
  const add = (ruleId: string, [offset, end]: Span, secret: string, via: SecretEncoding | undefined): void => {
    const line = lines.lineOf(offset);
    const key = `${ruleId}\0${line}\0${secret}`;
    // Joining re-finds what was already found on a line (a PEM block, whole): same rule, same line.
    if (seen.has(key) || (via === 'joined' && seenLines.has(`${ruleId}\0${line}`))) return;
    seen.add(key);
    seenLines.add(`${ruleId}\0${line}`);
    out.push({
      ruleId,
      line,
      preview: secret === '' ? '' : previewSecret(secret),
      secret,
      start: offset,
      end,
      ...(via === undefined ? {} : { via }),
    });
  };

  const all = specificOnly ? scanner.specific() : scanner;
  const specific = scanner.specific();
  for (const s of all.spans(text, file)) add(s.ruleId, [s.start, s.end], text.slice(s.start, s.end), base);

  /** Encoded runs of a view, decoded and scanned with every rule (nested up to MAX_DEPTH). */
  const decoded = new Set<string>();
  const walkDecoded = (layer: string, span: (from: number, to: number) => Span, depth: number, base = 0): void => {
    for (const run of decodedRuns(layer)) {
      // A view repeats most of the text's runs: each is decoded once.
      if (depth === 1 && decoded.has(run.run)) continue;
      if (depth === 1) decoded.add(run.run);
      const where = span(base + run.at, base + run.at + run.run.length);
      // A key whose PEM armour a text rule already reported on this line is one finding, not two.
      if (run.key && !seenLines.has(`private-key\0${lines.lineOf(where[0])}`)) {
        add(DER_PRIVATE_KEY_RULE, where, run.run, run.via);
      }
      if (run.text === undefined) continue;
      for (const s of all.spans(run.text, '')) add(s.ruleId, where, run.text.slice(s.start, s.end), run.via);
      if (depth < MAX_DEPTH) walkDecoded(run.text, () => where, depth + 1);
    }
  };
  walkDecoded(text, (from, to) => [from, to], 1);

  /**
   * A view scanned with `rules` (none: not scanned) and its encoded runs decoded — all of
   * them, or (`near-joins`) only around the places pieces were joined, since elsewhere the
   * view is the text itself; findings mapped back to `text`.
   */
  const scanView = (
    view: TextView,
    rules: SecretScanner | undefined,
    viewFile: string,
    decode: 'all' | 'near-joins',
  ): void => {
    if (view.text === '' || view.text === (view.parent ?? { text }).text) return;
    const span = (from: number, to: number): Span => [originalOffset(view, from), originalOffset(view, to - 1) + 1];
    for (const s of rules?.spans(view.text, viewFile) ?? []) {
      add(s.ruleId, span(s.start, s.end), view.text.slice(s.start, s.end), 'joined');
    }
    if (decode === 'all') {
      walkDecoded(view.text, span, 1);
      return;
    }
    let to = -1;
    for (const [at] of view.map.slice(1)) {
      if (at < to) continue;
      const from = Math.max(0, at - JOIN_REACH);
      to = Math.min(view.text.length, at + JOIN_REACH);
      walkDecoded(view.text.slice(from, to), span, 1, from);
    }
  };

  // `"ghp_ab" + "cd…"` and backslash continuations: an assignment stays an assignment, so
  // every rule runs on this view.
  const concatenated = withoutMatches(text, CONCATENATION);
  const continued = withoutMatches(concatenated, CONTINUATION);
  scanView(continued.text === concatenated.text ? concatenated : continued, all, file, 'near-joins');
  // Tokens hard-wrapped over lines read whole in line windows; wrapped blobs decode whole in blocks.
  const lined = linePieces(text);
  const keywords = (t: string): Array<[number, number]> => specific.keywordRanges(t);
  scanView(joinedPieces([lined], MAX_LINES, keywords), specific, '', 'near-joins');
  scanView(lineBlocks(lined), undefined, '', 'all');
  // Literals and words are also joined to decode (base64 split over two variables): every window.
  scanView(joinedPieces(literalPieces(text)), specific, '', 'all');
  if (options.words) scanView(joinedPieces([splitPieces(text, options.words)]), specific, '', 'all');
}

import { type DerKeyKind, derPrivateKeyKind } from './der-private-key.ts';
import { lineIndex } from './line-index.ts';
import { previewSecret, type SecretScanner } from './secret-scanner.ts';

/** How a finding's text was derived from the scanned content ('der': a binary file's own bytes). */
export type SecretEncoding = 'base64' | 'hex' | 'joined' | 'strings' | 'der';

/** The rule id of a private key found by its ASN.1 structure rather than by a text rule. */
export const DER_PRIVATE_KEY_RULE = 'private-key-der';

/** A finding in some content: never the secret itself, at most its first 4 characters. */
export interface DeepFinding {
  ruleId: string;
  /** 1-based line in the scanned content (of the encoded run or of the first joined line). */
  line: number;
  preview: string;
  /** Absent when the secret was in the content as it is. */
  via?: SecretEncoding;
}

/** Runs that can hold an encoded credential: 24 base64 characters are 18 bytes. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{24,}={0,2}/g;
const HEX_RUN = /(?:[0-9a-fA-F]{2}){16,}/g;
/** `"abc" +⏎ "def"`, Python's implicit `"abc"⏎ "def"`, PHP's `.`, VB's `&`, Lua's `..`. */
const CONCATENATION = /(["'`])[ \t]*(?:\+|\.\.?|&)?[ \t]*\r?\n[ \t]*(?:\+|\.\.?|&)?[ \t]*\1/g;
/** A backslash-newline continuation inside a string or a shell line. */
const CONTINUATION = /\\\r?\n[ \t]*/g;
/** A token hard-wrapped over lines (YAML block scalars, wrapped docs): the line break between two token characters. */
const WRAP = /(?<=[A-Za-z0-9_\-+/=.])\r?\n[ \t]*(?=[A-Za-z0-9_\-+/=])/g;
/** Nested encodings (base64 of hex of …) are followed this deep. */
const MAX_DEPTH = 2;
/** `strings(1)`'s default minimum run, and what a binary file contributes per run. */
const MIN_PRINTABLE = 8;

/** Printable ASCII runs of a binary, one per line, as `strings -n 8` prints them. */
export function printableStrings(bytes: Uint8Array): string {
  const runs: string[] = [];
  let start = -1;
  for (let i = 0; i <= bytes.length; i++) {
    const b = i < bytes.length ? bytes[i]! : 0;
    const printable = (b >= 0x20 && b < 0x7f) || b === 0x09;
    if (printable && start < 0) start = i;
    else if (!printable && start >= 0) {
      if (i - start >= MIN_PRINTABLE) runs.push(Buffer.from(bytes.subarray(start, i)).toString('latin1'));
      start = -1;
    }
  }
  return runs.join('\n');
}

/** A NUL in the first 8000 bytes marks a binary file, as git decides it. */
export function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8000).includes(0);
}

/** Decoded bytes that read as text (≥ 90 % printable) are worth scanning; key material is not text. */
function asText(bytes: Buffer): string | undefined {
  if (bytes.length < 12) return undefined;
  let printable = 0;
  for (const b of bytes) if ((b >= 0x20 && b < 0x7f) || b === 0x09 || b === 0x0a || b === 0x0d) printable++;
  return printable >= bytes.length * 0.9 ? bytes.toString('latin1') : undefined;
}

interface DecodedRun {
  at: number;
  run: string;
  via: 'base64' | 'hex';
  /** The decoded bytes read as text, when they do. */
  text?: string;
  /** The decoded bytes are a private key (DER), when they are. */
  key?: DerKeyKind;
}

/** Decoded base64, base64url and hex runs of `text` that are text or a private key, with where each run starts. */
function decodedRuns(text: string): DecodedRun[] {
  const out: DecodedRun[] = [];
  const decode = (at: number, run: string, via: 'base64' | 'hex', bytes: Buffer): void => {
    const asString = asText(bytes);
    if (asString !== undefined) out.push({ at, run, via, text: asString });
    else {
      const key = derPrivateKeyKind(bytes);
      if (key) out.push({ at, run, via, key });
    }
  };
  for (const m of text.matchAll(HEX_RUN)) decode(m.index, m[0], 'hex', Buffer.from(m[0], 'hex'));
  for (const m of text.matchAll(BASE64_RUN)) {
    // A hex run is also a base64 run; its base64 reading is noise.
    if (/^[0-9a-fA-F]+$/.test(m[0])) continue;
    const urlSafe = /[_-]/.test(m[0]);
    // Node's decoder stops at the first invalid character instead of failing: an embedded run
    // (`…;base64,AAAA`) decodes as far as it is base64.
    decode(m.index, m[0], 'base64', Buffer.from(m[0], urlSafe ? 'base64url' : 'base64'));
  }
  return out;
}

/**
 * `text` with the matches of `pattern` removed, and where each part of the result came
 * from (breakpoints: [resultOffset, originalOffset] pairs).
 */
function removeMatches(text: string, pattern: RegExp): JoinedText {
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
  if (map.length === 1) return { text, map };
  parts.push(text.slice(cursor));
  return { text: parts.join(''), map };
}

interface JoinedText {
  text: string;
  map: Array<[number, number]>;
}

function originalOffset(joined: JoinedText, offset: number): number {
  let lo = 0;
  let hi = joined.map.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (joined.map[mid]![0] <= offset) lo = mid;
    else hi = mid - 1;
  }
  const [from, to] = joined.map[lo]!;
  return to + (offset - from);
}

/**
 * Everything a push can carry in one piece of content, scanned: the text as it is; base64,
 * base64url and hex runs decoded (nested up to twice) when they decode to text; strings
 * concatenated over lines (`"ghp_ab" +⏎ "cd…"`) joined; and tokens hard-wrapped over lines
 * joined for the provider rules (generic rules would read two unrelated lines as one
 * assignment there). `scanner.spans` does the matching, so rules, allowlists and the
 * prefilter are the scanner's own.
 */
export function deepScan(scanner: SecretScanner, content: string | Uint8Array, file: string): DeepFinding[] {
  let text: string;
  let base: SecretEncoding | undefined;
  if (typeof content === 'string') text = content;
  else if (isBinary(content)) {
    text = printableStrings(content);
    base = 'strings';
  } else text = Buffer.from(content).toString('utf8');

  const lines = lineIndex(text);
  const seen = new Set<string>();
  const seenLines = new Set<string>();
  const out: DeepFinding[] = [];
  const add = (ruleId: string, offset: number, secret: string, via: SecretEncoding | undefined): void => {
    const line = lines.lineOf(offset);
    const key = `${ruleId}\0${line}\0${secret}`;
    // Joining lines re-finds what was already found on them (a PEM block, whole): same rule, same line.
    if (seen.has(key) || (via === 'joined' && seenLines.has(`${ruleId}\0${line}`))) return;
    seen.add(key);
    seenLines.add(`${ruleId}\0${line}`);
    out.push({
      ruleId,
      line,
      preview: secret === '' ? '' : previewSecret(secret),
      ...(via === undefined ? {} : { via }),
    });
  };

  // A binary's printable runs are mostly noise: generic rules would read random bytes as values.
  const rules = base === 'strings' ? scanner.specific() : scanner;
  for (const s of rules.spans(text, file)) add(s.ruleId, s.start, text.slice(s.start, s.end), base);
  // Path-only rules report the file itself; they were answered above.
  if (base === 'strings' && derPrivateKeyKind(content as Uint8Array)) add(DER_PRIVATE_KEY_RULE, 0, '', 'der');
  const walkDecoded = (layer: string, at: (offset: number) => number, depth: number): void => {
    for (const run of decodedRuns(layer)) {
      const where = at(run.at);
      // A key whose PEM armour a text rule already reported on this line is one finding, not two.
      if (run.key && !seenLines.has(`private-key\0${lines.lineOf(where)}`)) {
        add(DER_PRIVATE_KEY_RULE, where, run.run, run.via);
      }
      if (run.text === undefined) continue;
      for (const s of rules.spans(run.text, '')) add(s.ruleId, where, run.text.slice(s.start, s.end), run.via);
      if (depth < MAX_DEPTH) walkDecoded(run.text, () => where, depth + 1);
    }
  };
  walkDecoded(text, (o) => o, 1);

  const joined = removeMatches(text, CONCATENATION);
  const continued = removeMatches(joined.text, CONTINUATION);
  if (continued.text !== text) {
    for (const s of rules.spans(continued.text, file)) {
      const o = originalOffset(joined, originalOffset(continued, s.start));
      add(s.ruleId, o, continued.text.slice(s.start, s.end), 'joined');
    }
  }
  const wrapped = removeMatches(continued.text, WRAP);
  if (wrapped.text !== continued.text) {
    for (const s of scanner.specific().spans(wrapped.text, file)) {
      const o = originalOffset(joined, originalOffset(continued, originalOffset(wrapped, s.start)));
      add(s.ruleId, o, wrapped.text.slice(s.start, s.end), 'joined');
    }
  }
  return out;
}

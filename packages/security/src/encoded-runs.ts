import { inflateGzip } from './content-texts.ts';
import { type DerKeyKind, derPrivateKeyKind } from './der-private-key.ts';

/** How a run of text was decoded. */
export type RunEncoding = 'base64' | 'hex' | 'url';

/** A run of `text` that decodes to text (or to a private key), and where it starts. */
interface DecodedRun {
  at: number;
  run: string;
  via: RunEncoding;
  /** The decoded bytes read as text (inflated first when they are gzip), when they do. */
  text?: string;
  /** The decoded bytes are a private key (DER), when they are. */
  key?: DerKeyKind;
}

/** Runs that can hold an encoded credential: 24 base64 characters are 18 bytes. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{24,}={0,2}/g;
const HEX_RUN = /(?:[0-9a-fA-F]{2}){16,}/g;
const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/g;
const URL_CHAR = /[A-Za-z0-9._~+=&-]/;
/** A percent-encoded run needs this many escapes: an ordinary URL with one `%20` is not worth decoding. */
const MIN_ESCAPES = 3;

/** Decoded bytes that read as text (≥ 90 % printable) are worth scanning; key material is not text. */
function asText(bytes: Buffer): string | undefined {
  if (bytes.length < 12) return undefined;
  let printable = 0;
  for (const b of bytes) if ((b >= 0x20 && b < 0x7f) || b === 0x09 || b === 0x0a || b === 0x0d) printable++;
  return printable >= bytes.length * 0.9 ? bytes.toString('latin1') : undefined;
}

function percentDecoded(run: string): string {
  return run.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/**
 * Percent-encoded runs (`%67%68%70%5F…`, `token%3Dghp%5F…`): escapes joined by URL
 * characters, with the URL characters around them. Found escape by escape (linear: a
 * regex with a repeated `[…]*%XX` group backtracks quadratically on a long line).
 */
function percentRuns(text: string): Array<{ at: number; run: string }> {
  const runs: Array<{ at: number; run: string }> = [];
  let first = -1;
  let last = -1;
  let escapes = 0;
  const flush = (): void => {
    if (escapes >= MIN_ESCAPES) {
      let from = first;
      while (from > 0 && URL_CHAR.test(text[from - 1]!)) from--;
      let to = last;
      while (to < text.length && URL_CHAR.test(text[to]!)) to++;
      runs.push({ at: from, run: text.slice(from, to) });
    }
    escapes = 0;
  };
  for (const m of text.matchAll(PERCENT_ESCAPE)) {
    let joined = escapes > 0;
    for (let i = last; joined && i < m.index; i++) if (!URL_CHAR.test(text[i]!)) joined = false;
    if (!joined) {
      flush();
      first = m.index;
    }
    escapes++;
    last = m.index + 3;
  }
  flush();
  return runs;
}

/**
 * Decoded base64, base64url, hex and percent-encoded runs of `text` that are text (a gzip
 * stream is inflated first) or a private key, with where each run starts.
 */
export function decodedRuns(text: string): DecodedRun[] {
  const out: DecodedRun[] = [];
  const decode = (at: number, run: string, via: 'base64' | 'hex', bytes: Buffer): void => {
    const inflated = inflateGzip(bytes);
    const asString = asText(inflated ?? bytes);
    if (asString !== undefined) out.push({ at, run, via, text: asString });
    else {
      const key = derPrivateKeyKind(bytes);
      if (key) out.push({ at, run, via, key });
    }
  };
  for (const m of text.matchAll(HEX_RUN)) decode(m.index, m[0], 'hex', Buffer.from(m[0], 'hex'));
  for (const m of text.matchAll(BASE64_RUN)) {
    // A hex run is also a base64 run; its base64 reading is noise. Encoded data has digits,
    // upper and lower case (24 random base64 characters lack one of them < 1 % of the time);
    // identifiers and paths (`getDefaultCompilerOptions`, `node_modules/typescript`) lack one.
    if (!/\d/.test(m[0]) || !/[A-Z]/.test(m[0]) || !/[a-z]/.test(m[0]) || /^[0-9a-fA-F]+$/.test(m[0])) continue;
    const urlSafe = /[_-]/.test(m[0]);
    // Node's decoder stops at the first invalid character instead of failing: an embedded run
    // (`…;base64,AAAA`) decodes as far as it is base64.
    decode(m.index, m[0], 'base64', Buffer.from(m[0], urlSafe ? 'base64url' : 'base64'));
    // A run that crosses a `/` may be a path (`notes/<base64url name>`): each segment is also
    // read from its own start, where its alignment is.
    if (m[0].includes('/')) {
      let offset = 0;
      for (const segment of m[0].split('/')) {
        if (offset > 0 && segment.length >= 24) {
          decode(
            m.index + offset,
            segment,
            'base64',
            Buffer.from(segment, /[_-]/.test(segment) ? 'base64url' : 'base64'),
          );
        }
        offset += segment.length + 1;
      }
    }
  }
  for (const { at, run } of percentRuns(text)) out.push({ at, run, via: 'url', text: percentDecoded(run) });
  return out;
}

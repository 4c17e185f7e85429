import { gunzipSync } from 'node:zlib';

/** How a text was read out of a file's bytes, when not as UTF-8. */
export type ContentReading = 'strings' | 'utf16' | 'gzip';

/** One text a file's bytes hold, and how it was read. */
interface ContentText {
  text: string;
  via?: ContentReading;
  /**
   * Printable runs of a binary are mostly noise: generic rules would read random bytes as
   * assignments there, so only provider rules run on them.
   */
  specificOnly: boolean;
}

/** `strings(1)`'s default minimum run, and what a binary file contributes per run. */
const MIN_PRINTABLE = 8;
/**
 * A gzip member is inflated up to this size: a compressed file written by a check is scanned
 * as what it holds, and a decompression bomb costs at most this much.
 */
const MAX_INFLATED = 16 * 1024 * 1024;
/** Compressed files inside compressed files are followed this deep. */
const MAX_GZIP_DEPTH = 2;

const printable = (b: number): boolean => (b >= 0x20 && b < 0x7f) || b === 0x09;

/**
 * Printable ASCII runs of a binary, one per line, as `strings -n 8` prints them, then its
 * UTF-16LE runs as `strings -el` does (Windows binaries and resources store text that way).
 */
export function printableStrings(bytes: Uint8Array): string {
  const runs: string[] = [];
  let start = -1;
  for (let i = 0; i <= bytes.length; i++) {
    const ok = i < bytes.length && printable(bytes[i]!);
    if (ok && start < 0) start = i;
    else if (!ok && start >= 0) {
      if (i - start >= MIN_PRINTABLE) runs.push(Buffer.from(bytes.subarray(start, i)).toString('latin1'));
      start = -1;
    }
  }
  for (const parity of [0, 1]) {
    let run = '';
    for (let i = parity; i <= bytes.length; i += 2) {
      const lo = bytes[i];
      if (lo !== undefined && bytes[i + 1] === 0 && printable(lo)) run += String.fromCharCode(lo);
      else {
        if (run.length >= MIN_PRINTABLE) runs.push(run);
        run = '';
      }
    }
  }
  return runs.join('\n');
}

/** A NUL in the first 8000 bytes marks a binary file, as git decides it. */
function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8000).includes(0);
}

/**
 * UTF-16 text: a byte-order mark, or (without one) NULs in most odd or most even positions
 * of the first 8000 bytes with the other half printable — what `echo … | iconv -t UTF-16LE`
 * or PowerShell's `Out-File` writes.
 */
function utf16Encoding(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  const n = Math.min(bytes.length, 8000) & ~1;
  if (n < 16) return undefined;
  let evenZero = 0;
  let oddZero = 0;
  let evenText = 0;
  let oddText = 0;
  for (let i = 0; i < n; i += 2) {
    const a = bytes[i]!;
    const b = bytes[i + 1]!;
    if (a === 0) evenZero++;
    if (b === 0) oddZero++;
    if (printable(a) || a === 0x0a || a === 0x0d) evenText++;
    if (printable(b) || b === 0x0a || b === 0x0d) oddText++;
  }
  const half = n / 2;
  if (oddZero >= half * 0.9 && evenText >= half * 0.9) return 'utf-16le';
  if (evenZero >= half * 0.9 && oddText >= half * 0.9) return 'utf-16be';
  return undefined;
}

function isGzip(bytes: Uint8Array): boolean {
  return bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/**
 * The inflated bytes of a gzip stream, or undefined when it is not one (or inflates past
 * MAX_INFLATED: then it is not read at all, and the caller scans its printable strings).
 */
export function inflateGzip(bytes: Uint8Array): Buffer | undefined {
  if (!isGzip(bytes)) return undefined;
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_INFLATED });
  } catch {
    return undefined;
  }
}

/**
 * The texts a file's bytes hold: UTF-8 text as it is; UTF-16 text decoded; a gzip file's
 * content (nested up to twice) read the same way; and a binary's printable strings.
 */
export function contentTexts(bytes: Uint8Array, depth = 1): ContentText[] {
  const inflated = depth <= MAX_GZIP_DEPTH ? inflateGzip(bytes) : undefined;
  if (inflated) {
    return contentTexts(inflated, depth + 1).map((t) => ({ ...t, via: 'gzip' as const }));
  }
  const utf16 = utf16Encoding(bytes);
  if (utf16) {
    const text = new TextDecoder(utf16).decode(bytes);
    return [{ text, via: 'utf16', specificOnly: false }];
  }
  if (isBinary(bytes)) return [{ text: printableStrings(bytes), via: 'strings', specificOnly: true }];
  return [
    { text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'), specificOnly: false },
  ];
}

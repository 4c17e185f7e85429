/**
 * Zero-width characters (U+200B–U+200D, U+2060, U+FEFF, soft hyphen, Mongolian vowel
 * separator) and bidi controls (U+202A–U+202E, U+2066–U+2069, U+200E/F, U+061C): invisible
 * on GitHub, read by a model. Tag characters (U+E0000–U+E007F) spell hidden ASCII.
 */
const INVISIBLE =
  /[\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/gu;
/** `<!-- … -->`, and an unterminated one to the end: GitHub renders neither. */
const HTML_COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
/** Attributes whose text GitHub does not show but a model reads. */
const HIDDEN_ATTRIBUTE =
  /\s(?:alt|title|aria-[a-z-]+|data-[a-z0-9_.-]+|placeholder|hidden)\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+)/gi;
const HIDDEN_FLAG = /\shidden(?=[\s/>])/gi;
/** An element shown as nothing: `<details>` stays (people read it), these do not render text. */
const HIDDEN_ELEMENT = /<(script|style|template|noscript)\b[^>]*>[\s\S]*?(?:<\/\1\s*>|$)/gi;
/** `![alt](url)` → `![](url)`: the alt text is only shown when the image fails. */
const IMAGE_ALT = /!\[[^\]]*\]\(/g;
/** `[text](url "title")` → `[text](url)`: a link title only shows on hover. */
const LINK_TITLE = /(\]\(\s*[^\s)]+)\s+(?:"[^"]*"|'[^']*'|\([^)]*\))\s*\)/g;
/** Reference definitions `[id]: url "title"` carry the same hover-only title. */
const REFERENCE_TITLE = /^(\s{0,3}\[[^\]]+\]:\s*\S+)\s+(?:"[^"]*"|'[^']*'|\([^)]*\))\s*$/gm;
/** Numeric entities decode to anything, the invisible characters above included. */
const NUMERIC_ENTITY = /&#(x[0-9a-f]+|\d+);/gi;

/**
 * Text written by someone outside (an issue's title and body, a comment) as it may reach a
 * prompt: what GitHub renders invisibly is removed, so a model only reads what a person
 * reviewing the issue could see. Removed: HTML comments, zero-width and bidi characters,
 * hidden attributes (`alt`, `title`, `aria-*`, `data-*`, `hidden`…), the alt text of images,
 * link titles, and non-rendering elements. Pure; idempotent.
 */
export function sanitizeUntrustedText(text: string): string {
  let out = text.normalize('NFC');
  // Decode numeric entities first, so an encoded invisible character is caught below.
  out = out.replace(NUMERIC_ENTITY, (whole, code: string) => {
    const n = code[0]?.toLowerCase() === 'x' ? Number.parseInt(code.slice(1), 16) : Number.parseInt(code, 10);
    return Number.isFinite(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : whole;
  });
  out = out.replace(INVISIBLE, '');
  // Repeat until stable: removing one construct can join the halves of another (`<!-<!---->-`).
  for (let previous = ''; previous !== out; ) {
    previous = out;
    out = out
      .replace(HTML_COMMENT, '')
      .replace(HIDDEN_ELEMENT, '')
      .replace(/<[a-z][^>]*>/gi, (tag) => tag.replace(HIDDEN_ATTRIBUTE, '').replace(HIDDEN_FLAG, ''))
      .replace(IMAGE_ALT, '![](')
      .replace(LINK_TITLE, '$1)')
      .replace(REFERENCE_TITLE, '$1');
  }
  return out.trim();
}

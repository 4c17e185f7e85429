/**
 * gitleaks rules are Go (RE2) regular expressions. Node 20's RegExp has no inline flag
 * groups (`(?i)`, `(?-i:…)`, `(?s)`), no `\z`/`\A`, no POSIX classes and spells named groups
 * differently, and gitleaks' own default rules use all of these. This translates the RE2
 * subset gitleaks configs use into an equivalent JS source without needing the `u` flag
 * (which would reject identity escapes like `\-` that RE2 accepts).
 *
 * Case-insensitivity that is switched on or off mid-pattern is expanded into explicit
 * case classes (`k` → `[kK]`), so the translation never depends on a global `i` flag except
 * for the common "whole pattern is `(?i)…`" case, kept as a flag because it is faster.
 */

export class GoRegexSyntaxError extends Error {}

const POSIX_CLASSES: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

interface Flags {
  i: boolean;
  s: boolean;
  m: boolean;
}

interface TranslatedRegex {
  source: string;
  flags: string;
}

function isLetter(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

function otherCase(c: string): string {
  return c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
}

function parseFlagSpec(spec: string, current: Flags): Flags {
  const next = { ...current };
  let on = true;
  for (const ch of spec) {
    if (ch === '-') on = false;
    else if (ch === 'i' || ch === 's' || ch === 'm') next[ch] = on;
    else if (ch === 'U') throw new GoRegexSyntaxError('ungreedy flag (?U) is not supported');
    else throw new GoRegexSyntaxError(`unknown flag '${ch}'`);
  }
  return next;
}

/** Reads one escape starting at `src[i] === '\\'`; returns the JS text and the next index. */
function readEscape(src: string, i: number, inClass: boolean): [string, number] {
  const c = src[i + 1];
  if (c === undefined) throw new GoRegexSyntaxError('trailing backslash');
  if (c === 'x') {
    if (src[i + 2] === '{') {
      const end = src.indexOf('}', i + 3);
      if (end < 0) throw new GoRegexSyntaxError('unterminated \\x{');
      const code = Number.parseInt(src.slice(i + 3, end), 16);
      if (!Number.isFinite(code) || code > 0xffff)
        throw new GoRegexSyntaxError('\\x{…} beyond the BMP is not supported');
      return [`\\u${code.toString(16).padStart(4, '0')}`, end + 1];
    }
    return [src.slice(i, i + 4), i + 4];
  }
  if (c === 'z') {
    if (inClass) throw new GoRegexSyntaxError('\\z inside a class');
    return ['(?![\\s\\S])', i + 2];
  }
  if (c === 'A') {
    if (inClass) throw new GoRegexSyntaxError('\\A inside a class');
    return ['(?<![\\s\\S])', i + 2];
  }
  if (c === 'p' || c === 'P' || c === 'Q' || c === 'E' || c === 'C') {
    throw new GoRegexSyntaxError(`\\${c} is not supported`);
  }
  return [`\\${c}`, i + 2];
}

/** Translates a character class starting at `src[i] === '['`. */
function readClass(src: string, start: number, ci: boolean): [string, number] {
  let i = start + 1;
  let out = '[';
  if (src[i] === '^') {
    out += '^';
    i++;
  }
  const extra: string[] = [];
  let first = true;
  const addCaseRange = (lo: number, hi: number): void => {
    const a = Math.max(lo, 97);
    const z = Math.min(hi, 122);
    if (a <= z) extra.push(`${String.fromCharCode(a - 32)}-${String.fromCharCode(z - 32)}`);
    const A = Math.max(lo, 65);
    const Z = Math.min(hi, 90);
    if (A <= Z) extra.push(`${String.fromCharCode(A + 32)}-${String.fromCharCode(Z + 32)}`);
  };
  for (;;) {
    const c = src[i];
    if (c === undefined) throw new GoRegexSyntaxError('unterminated character class');
    if (c === ']' && !first) {
      i++;
      break;
    }
    first = false;
    if (c === '[' && src[i + 1] === ':') {
      const end = src.indexOf(':]', i + 2);
      if (end < 0) throw new GoRegexSyntaxError('unterminated POSIX class');
      let name = src.slice(i + 2, end);
      const negated = name.startsWith('^');
      if (negated) name = name.slice(1);
      const body = POSIX_CLASSES[name];
      if (body === undefined || negated) throw new GoRegexSyntaxError(`POSIX class [:${name}:] is not supported`);
      out += body;
      if (ci && (name === 'lower' || name === 'upper')) out += 'A-Za-z';
      i = end + 2;
      continue;
    }
    if (c === '\\') {
      const [esc, next] = readEscape(src, i, true);
      out += esc;
      i = next;
      continue;
    }
    if (c === '[') {
      // A literal '[' in a class: RE2 accepts it bare, JS (non-u) does too, but escape for clarity.
      out += '\\[';
      i++;
      continue;
    }
    const lo = c;
    if (src[i + 1] === '-' && src[i + 2] !== undefined && src[i + 2] !== ']' && src[i + 2] !== '\\') {
      const hi = src[i + 2]!;
      out += `${lo}-${hi}`;
      if (ci) addCaseRange(lo.charCodeAt(0), hi.charCodeAt(0));
      i += 3;
      continue;
    }
    out += lo;
    if (ci && isLetter(lo)) extra.push(otherCase(lo));
    i++;
  }
  return [`${out}${extra.join('')}]`, i];
}

function translateWith(src: string, initial: Flags): string {
  let out = '';
  const stack: Flags[] = [];
  let flags = initial;
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\\') {
      const [esc, next] = readEscape(src, i, false);
      // An escaped letter in RE2 is a class (\w, \d…) or control (\n); never a case-foldable literal.
      out += esc;
      i = next;
    } else if (c === '[') {
      const [cls, next] = readClass(src, i, flags.i);
      out += cls;
      i = next;
    } else if (c === '(') {
      if (src[i + 1] === '?') {
        const rest = src.slice(i + 2);
        const named = /^P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
        const flagOnly = /^([imsU-]+)\)/.exec(rest);
        const flagGroup = /^([imsU-]+):/.exec(rest);
        if (named) {
          stack.push(flags);
          out += `(?<${named[1]}>`;
          i += 2 + named[0].length;
        } else if (flagOnly) {
          // Applies to the rest of the enclosing group, as in RE2.
          flags = parseFlagSpec(flagOnly[1]!, flags);
          i += 2 + flagOnly[0].length;
        } else if (flagGroup) {
          stack.push(flags);
          flags = parseFlagSpec(flagGroup[1]!, flags);
          out += '(?:';
          i += 2 + flagGroup[0].length;
        } else if (rest.startsWith(':')) {
          stack.push(flags);
          out += '(?:';
          i += 3;
        } else {
          throw new GoRegexSyntaxError(`unsupported group syntax '(?${rest.slice(0, 3)}'`);
        }
      } else {
        stack.push(flags);
        out += '(';
        i++;
      }
    } else if (c === ')') {
      const restored = stack.pop();
      if (restored === undefined) throw new GoRegexSyntaxError('unbalanced )');
      flags = restored;
      out += ')';
      i++;
    } else if (c === '.') {
      out += flags.s ? '[\\s\\S]' : '[^\\n]';
      i++;
    } else if (c === '^') {
      out += flags.m ? '(?<![^\\n])' : '^';
      i++;
    } else if (c === '$') {
      out += flags.m ? '(?![^\\n])' : '$';
      i++;
    } else if (flags.i && isLetter(c)) {
      out += `[${c}${otherCase(c)}]`;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  if (stack.length > 0) throw new GoRegexSyntaxError('unbalanced (');
  return out;
}

/** Translates an RE2 pattern as used in gitleaks configs into a JS RegExp source and flags. */
export function translateGoRegex(pattern: string): TranslatedRegex {
  const start: Flags = { i: false, s: false, m: false };
  const leadingI = /^\(\?i\)/.exec(pattern);
  const rest = leadingI ? pattern.slice(leadingI[0].length) : pattern;
  // Fast path: case-insensitive throughout, so a plain `i` flag is exact.
  if (leadingI && !/\(\?[a-zA-Z]*-[a-zA-Z]*[:)]/.test(rest)) {
    return { source: translateWith(rest, start), flags: 'i' };
  }
  return { source: translateWith(pattern, start), flags: '' };
}

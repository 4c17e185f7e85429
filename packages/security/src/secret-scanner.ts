import { PullwrightError, parseUnifiedDiff } from '@pullwright/core';
import { DEFAULT_RULES } from './default-rules.ts';
import { KeywordPrefilter } from './keyword-prefilter.ts';
import { type LineIndex, lineIndex } from './line-index.ts';
import { MatchPlan } from './match-plan.ts';
import type { SecretAllowlist, SecretRule, SecretRuleSet } from './secret-rule.ts';
import { shannonEntropy } from './shannon-entropy.ts';
import { verifiesChecksum } from './token-checksum.ts';

/** A detected secret, safe to log and show: it never carries the secret itself. */
interface SecretFinding {
  ruleId: string;
  file: string;
  /** 1-based; in a diff scan, the line number in the new version of the file. */
  line: number;
  /** At most the first 4 characters of the secret, then an ellipsis. */
  preview: string;
}

/** Where a secret sits in a text: for the Redactor, which replaces it. */
export interface SecretSpan {
  ruleId: string;
  start: number;
  end: number;
}

/**
 * The scan could not complete (internal error, unparseable diff, time budget exceeded).
 * Callers that gate a commit treat this as "blocked": a scanner that cannot answer must
 * never be read as "no secrets".
 */
export class SecretScanFailedError extends PullwrightError<{ reason: 'timeout' | 'internal'; detail: string }> {
  constructor(reason: 'timeout' | 'internal', detail: string, cause?: unknown) {
    super('check_failed', `secret scan failed (${reason}): ${detail}`, { reason, detail }, { cause });
  }
}

interface SecretScannerOptions {
  /** Rules and global allowlists; defaults to the shipped gitleaks-format rules. */
  rules?: SecretRuleSet;
  /** Wall-clock budget for one `scanDiff` call. Default 10 s: a 1 MB diff takes well under 100 ms. */
  diffBudgetMs?: number;
}

/**
 * Where a rule's regex runs, around each keyword hit. Every shipped rule (and every rule
 * gitleaks generates) matches within one line, starts at most ~100 characters before its
 * keyword (gitleaks' generic prefix is `[\w.-]{0,50}?`), and only crosses a newline right
 * after a name whose value is on the next line. So a single-line rule runs from
 * BEFORE characters ahead of the keyword to the end of its line, plus the next line when
 * the keyword sits within NEXT_LINE_TAIL characters of the line end; never further than
 * AFTER past the keyword (minified bundles have megabyte-long lines; no credential is
 * that long). Running on these windows instead of the whole file is what makes a
 * keyword-dense tree cheap to scan.
 */
const BEFORE = 128;
const AFTER = 4096;
const NEXT_LINE_TAIL = 64;
const MERGE_GAP = 256;
/** The longest prefixed token a generic finding is checked against as a cut-short one. */
const MAX_CUT_SHORT_TOKEN = 256;
/** How many generic findings one scan checks that way (each check is up to 256 regex runs). */
const TRUNCATION_CHECKS_PER_SCAN = 200;
/** PEM blocks: an 8192-bit RSA key is about 6.5 KB. */
const MULTILINE_REACH = 65_536;

/** What a finding shows of its secret. */
export function previewSecret(secret: string): string {
  // Short secrets show less, so a preview never reveals a meaningful fraction of one.
  return `${secret.slice(0, Math.min(4, Math.floor(secret.length / 4)))}…`;
}

/** `line` holds the offset of the match start until findings are built. */
interface Detection {
  ruleId: string;
  start: number;
  end: number;
  secret: string;
  line: number;
}

/** [from, to) of a regex window, and the first keyword hit in it. */
type Window = [number, number, number];

interface Deadline {
  check(): void;
}

const NO_DEADLINE: Deadline = { check() {} };

/**
 * gitleaks' detection model in-process: keyword prefilter (Aho-Corasick) → rule regex in a
 * window around each keyword hit → secret group → entropy → allowlists.
 *
 * Differences from gitleaks, on purpose: `gitleaks:allow` comments are not honoured (the
 * model writes the code being scanned and could add one), and a rule runs in a window
 * around its keyword rather than over the whole file — same findings for every rule whose
 * keyword is part of what it matches, at a fraction of the cost on large files.
 */
export class SecretScanner {
  readonly rules: readonly SecretRule[];
  readonly #globalAllowlists: readonly SecretAllowlist[];
  readonly #prefilter: KeywordPrefilter;
  /** For each prefilter keyword, the indices of the rules that use it. */
  readonly #rulesOfKeyword: number[][];
  readonly #diffBudgetMs: number;
  readonly #plans: Array<MatchPlan | undefined>;
  /** Rules whose keywords are their tokens' own prefixes, each with a sticky copy of its regex. */
  readonly #prefixed: ReadonlyArray<{ keywords: readonly string[]; regex: RegExp }>;
  #specific: SecretScanner | undefined;

  constructor(options: SecretScannerOptions = {}) {
    const set = options.rules ?? DEFAULT_RULES;
    this.rules = set.rules;
    this.#globalAllowlists = set.allowlists;
    this.#diffBudgetMs = options.diffBudgetMs ?? 10_000;
    this.#prefilter = new KeywordPrefilter(set.rules.flatMap((r) => r.keywords));
    const index = new Map(this.#prefilter.keywords.map((k, i) => [k, i]));
    this.#rulesOfKeyword = this.#prefilter.keywords.map(() => []);
    set.rules.forEach((r, i) => {
      for (const k of r.keywords) this.#rulesOfKeyword[index.get(k)!]!.push(i);
    });
    this.#plans = set.rules.map((r) => (r.regex ? new MatchPlan(r.regex, r.keywords) : undefined));
    // The header of default-rules.toml: a rule without an entropy floor is one whose prefix
    // only its provider uses.
    this.#prefixed = set.rules
      .filter((r) => r.regex && r.entropy === 0 && r.keywords.length > 0 && !isGeneric(r.id))
      // Sticky: a cut-short value is tried from its start only, one position per try.
      .map((r) => ({
        keywords: r.keywords,
        regex: new RegExp(r.regex!.source, `${r.regex!.flags.replace(/[dgy]/g, '')}y`),
      }));
  }

  /**
   * The same rules without the generic ones, for text assembled from pieces (lines joined
   * across breaks), where a generic rule would read two unrelated lines as one assignment.
   */
  specific(): SecretScanner {
    this.#specific ??= new SecretScanner({
      rules: { rules: this.rules.filter((r) => !isGeneric(r.id)), allowlists: [...this.#globalAllowlists] },
      diffBudgetMs: this.#diffBudgetMs,
    });
    return this.#specific;
  }

  /**
   * Where the rules' keywords occur in `text`, as [start, end) ranges: a rule with keywords
   * can only match around one. Rules without keywords run on whole texts and are not asked.
   */
  keywordRanges(text: string): Array<[number, number]> {
    const ranges: Array<[number, number]> = [];
    const keywords = this.#prefilter.keywords;
    this.#prefilter.scan(text, (k, start) => ranges.push([start, start + keywords[k]!.length]));
    return ranges;
  }

  /** Findings in one file's content (a write, or a file on disk). */
  scanText(text: string, file: string): SecretFinding[] {
    const lines = lineIndex(text);
    return this.#detect(text, file, NO_DEADLINE, lines).map((d) => ({
      ruleId: d.ruleId,
      file,
      line: lines.lineOf(d.line),
      preview: previewSecret(d.secret),
    }));
  }

  /**
   * Secret positions in arbitrary text (log lines, messages), for redaction; with `file`,
   * path-scoped rules and allowlists apply as in `scanText`.
   */
  spans(text: string, file = ''): SecretSpan[] {
    return this.#detect(text, file, NO_DEADLINE, lineIndex(text)).map(({ ruleId, start, end }) => ({
      ruleId,
      start,
      end,
    }));
  }

  /**
   * Findings in the lines a unified diff adds, with new-file line numbers. Throws
   * SecretScanFailedError on any internal failure or when the time budget runs out, so a
   * commit gate fails closed.
   */
  scanDiff(unifiedDiff: string, options: { budgetMs?: number } = {}): SecretFinding[] {
    const budget = options.budgetMs ?? this.#diffBudgetMs;
    const started = performance.now();
    const deadline: Deadline = {
      check() {
        if (performance.now() - started > budget) {
          throw new SecretScanFailedError('timeout', `exceeded ${budget} ms`);
        }
      },
    };
    try {
      const findings: SecretFinding[] = [];
      for (const file of parseUnifiedDiff(unifiedDiff)) {
        deadline.check();
        const added = file.lines.filter((l) => l.kind === 'add');
        if (added.length === 0) continue;
        // Consecutive added lines are joined so multi-line secrets (PEM blocks) are seen whole.
        const text = added.map((l) => l.text).join('\n');
        const lines = lineIndex(text);
        for (const d of this.#detect(text, file.path, deadline, lines)) {
          findings.push({
            ruleId: d.ruleId,
            file: file.path,
            line: added[lines.lineOf(d.line) - 1]!.new!,
            preview: previewSecret(d.secret),
          });
        }
      }
      return findings;
    } catch (err) {
      if (err instanceof SecretScanFailedError) throw err;
      // The message of a parse or regex error names a position, never diff content.
      throw new SecretScanFailedError('internal', err instanceof Error ? err.message : 'unknown error', err);
    }
  }

  #detect(text: string, file: string, deadline: Deadline, lines: LineIndex): Detection[] {
    const out: Detection[] = [];
    // An allowlisted path (a declared fixture directory) still gets its checksummed rules
    // run: a token whose checksum verifies is real wherever it sits.
    const pathAllowed = file !== '' && this.#globalAllowlists.some((a) => pathOnlyAllows(a, file));
    if (pathAllowed && !this.rules.some((r) => r.checksum)) return out;

    // Hit positions per rule, collected during the one prefilter pass.
    const ruleHits: number[][] = this.rules.map(() => []);
    const rulesOf = this.#rulesOfKeyword;
    if (text.length > 0) {
      this.#prefilter.scan(text, (k, start) => {
        for (const r of rulesOf[k]!) ruleHits[r]!.push(start);
      });
    }

    this.rules.forEach((rule, r) => {
      if (pathAllowed && !rule.checksum) return;
      if (rule.path && (file === '' || !rule.path.test(file))) return;
      if (file !== '' && !rule.checksum && rule.allowlists.some((a) => pathOnlyAllows(a, file))) return;
      if (!rule.regex) {
        // Path-only rule: the file itself is the finding.
        if (file !== '') out.push({ ruleId: rule.id, start: 0, end: 0, secret: '', line: 0 });
        return;
      }
      const windows =
        rule.keywords.length === 0 ? [[0, text.length, 0] as Window] : this.#windows(text, rule, ruleHits[r]!);
      const plan = this.#plans[r]!;
      for (const [from, to, firstHit] of windows) {
        deadline.check();
        this.#matchWindow(text, from, to, plan.keywordAnchored ? firstHit - from : 0, rule, plan, file, lines, out);
      }
    });
    out.sort((a, b) => a.start - b.start);
    // A file of very many such values gets its first ones checked; the rest stay reported.
    let checks = TRUNCATION_CHECKS_PER_SCAN;
    const kept = out.filter((d) => {
      if (!isGeneric(d.ruleId) || checks <= 0) return true;
      const lower = d.secret.toLowerCase();
      const owners = this.#prefixed.filter((p) => p.keywords.some((k) => lower.startsWith(k)));
      if (owners.length === 0) return true;
      checks--;
      return !isCutShortToken(d.secret, owners);
    });
    return dropGenericDuplicates(kept);
  }

  /** Merged, sorted windows around keyword hits. */
  #windows(text: string, rule: SecretRule, hits: number[]): Window[] {
    if (hits.length === 0) return [];
    // A typed-array sort is numeric and several times faster than a comparator sort.
    const positions = Int32Array.from(hits).sort();
    const windows: Window[] = [];
    let lineStart = -1;
    let lineEnd = -1;
    let nextEnd = -1;
    for (const at of positions) {
      if (at < lineStart || at >= lineEnd) {
        lineStart = text.lastIndexOf('\n', at - 1) + 1;
        const nl = text.indexOf('\n', at);
        lineEnd = nl < 0 ? text.length : nl;
        nextEnd = -1;
      }
      const from = Math.max(lineStart, at - BEFORE);
      let to: number;
      if (rule.multiline) {
        to = Math.min(text.length, at + MULTILINE_REACH);
      } else if (lineEnd - at <= NEXT_LINE_TAIL && lineEnd < text.length) {
        if (nextEnd < 0) {
          const nl = text.indexOf('\n', lineEnd + 1);
          nextEnd = nl < 0 ? text.length : nl;
        }
        to = Math.min(nextEnd, at + AFTER);
      } else {
        to = Math.min(lineEnd, at + AFTER);
      }
      const last = windows[windows.length - 1];
      // Nearby windows are joined: one regex call over a few extra characters is cheaper
      // than starting another, and scanning more text can only find more.
      if (last && from <= last[1] + MERGE_GAP) last[1] = Math.max(last[1], to);
      else windows.push([from, to, at]);
    }
    return windows;
  }

  #matchWindow(
    text: string,
    from: number,
    to: number,
    searchFrom: number,
    rule: SecretRule,
    plan: MatchPlan,
    file: string,
    lines: LineIndex,
    out: Detection[],
  ): void {
    const slice = from === 0 && to === text.length ? text : text.slice(from, to);
    plan.forEach(
      slice,
      ({ m, start: matchStart, text: match }) => {
        let group = 0;
        if (rule.secretGroup > 0) group = rule.secretGroup;
        else {
          for (let g = 1; g < m.length; g++) {
            if (m[g]) {
              group = g;
              break;
            }
          }
        }
        const secret = m[group];
        const span = m.indices?.[group];
        if (!secret || !span) return;
        const trimmed = secret.replace(/^\n+|\n+$/g, '');
        if (trimmed === '') return;
        const start = from + span[0] + secret.indexOf(trimmed);
        // A verified checksum proves a real token: no placeholder or fixture allowance applies.
        if (!(rule.checksum && verifiesChecksum(rule.checksum, trimmed))) {
          if (rule.entropy > 0 && shannonEntropy(trimmed) <= rule.entropy) return;
          const finding = { secret: trimmed, match, start };
          if (this.#globalAllowlists.some((a) => allows(a, finding, file, lines))) return;
          if (rule.allowlists.some((a) => allows(a, finding, file, lines))) return;
        }
        // Reported at the line where the match starts (a PEM block's BEGIN line), as gitleaks does.
        out.push({ ruleId: rule.id, start, end: start + trimmed.length, secret: trimmed, line: from + matchStart });
      },
      searchFrom,
    );
  }
}

/**
 * Whether `secret`, which starts with the prefix of one of `owners`, is the beginning of a
 * token in that provider's format, cut short (`gloas-` and 32 of its 64 characters): that
 * provider's rule judges it, and a generic rule does not report it again. Tried by running
 * the provider's regex on the value lengthened with its own last character; a value that
 * runs on past the format, or breaks its alphabet before the end, stays the generic rule's.
 */
function isCutShortToken(secret: string, owners: ReadonlyArray<{ regex: RegExp }>): boolean {
  if (secret.length >= MAX_CUT_SHORT_TOKEN) return false;
  const padded = secret + secret[secret.length - 1]!.repeat(MAX_CUT_SHORT_TOKEN - secret.length);
  for (const { regex } of owners) {
    for (let end = secret.length + 1; end <= MAX_CUT_SHORT_TOKEN; end++) {
      regex.lastIndex = 0;
      if (regex.test(padded.slice(0, end))) return true;
    }
  }
  return false;
}

/** gitleaks' convention: a rule that knows no provider has "generic" in its id. */
function isGeneric(ruleId: string): boolean {
  return ruleId.includes('generic');
}

/**
 * As gitleaks does: a generic rule's finding that overlaps a specific rule's is the same
 * secret reported twice, and the specific rule id is the more useful one. `sorted` is
 * ordered by start; O(n log n), since a hostile input can produce very many findings.
 */
function dropGenericDuplicates(sorted: Detection[]): Detection[] {
  // Two generic rules on one value (a high-entropy hex string under a secret name) are one finding.
  const genericSpans = new Set<string>();
  const unique = sorted.filter((d) => {
    if (!isGeneric(d.ruleId)) return true;
    const span = `${d.start}:${d.end}`;
    if (genericSpans.has(span)) return false;
    genericSpans.add(span);
    return true;
  });
  const specific = unique.filter((d) => !isGeneric(d.ruleId));
  if (specific.length === 0 || specific.length === unique.length) return unique;
  const starts = specific.map((d) => d.start);
  // Longest reach of any specific finding starting at or before index i.
  const reach: number[] = [];
  for (const d of specific) reach.push(Math.max(reach[reach.length - 1] ?? 0, d.end));
  return unique.filter((f) => {
    if (!isGeneric(f.ruleId)) return true;
    // Last specific finding starting before f ends: overlap iff anything up to it reaches past f.start.
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! < f.end) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 || reach[lo - 1]! <= f.start;
  });
}

/** An allowlist whose only checks are paths can be decided before scanning the file. */
function pathOnlyAllows(a: SecretAllowlist, file: string): boolean {
  if (a.paths.length === 0 || a.regexes.length > 0 || a.stopwords.length > 0) {
    // OR allowlists with paths still allow on a path match alone.
    return a.condition === 'OR' && a.paths.some((p) => p.test(file));
  }
  return a.paths.some((p) => p.test(file));
}

function allows(
  a: SecretAllowlist,
  f: { secret: string; match: string; start: number },
  file: string,
  lines: LineIndex,
): boolean {
  const target = a.regexTarget === 'match' ? f.match : a.regexTarget === 'line' ? lines.lineText(f.start) : f.secret;
  const lower = f.secret.toLowerCase();
  const checks: boolean[] = [];
  if (a.paths.length > 0) checks.push(file !== '' && a.paths.some((p) => p.test(file)));
  if (a.regexes.length > 0) checks.push(a.regexes.some((r) => r.test(target)));
  if (a.stopwords.length > 0) checks.push(a.stopwords.some((w) => lower.includes(w)));
  return a.condition === 'AND' ? checks.length > 0 && checks.every(Boolean) : checks.some(Boolean);
}

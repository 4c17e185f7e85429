import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PullwrightError } from '@pullwright/core';
import { parse as parseToml } from 'smol-toml';
import { GoRegexSyntaxError, translateGoRegex } from './go-regex.ts';
import type { SecretAllowlist, SecretRule, SecretRuleSet } from './secret-rule.ts';
import { TOKEN_CHECKSUMS, type TokenChecksum } from './token-checksum.ts';

/** A config that cannot be loaded. The scanner refuses to start rather than scan with fewer rules. */
export class GitleaksConfigError extends PullwrightError<{ source: string; rule?: string; reason: string }> {
  constructor(source: string, reason: string, rule?: string) {
    super('config_invalid', `gitleaks config ${source}${rule ? ` rule ${rule}` : ''}: ${reason}`, {
      source,
      reason,
      ...(rule === undefined ? {} : { rule }),
    });
  }
}

interface GitleaksConfigOptions {
  /** Name used in error messages (a file path, or 'default'). */
  source?: string;
  /** The rule set `[extend] useDefault = true` refers to. */
  defaults?: SecretRuleSet;
  /** Loads `[extend] path = …`; relative paths are resolved by the caller. Absent = not allowed. */
  loadExtended?: (extendPath: string) => SecretRuleSet;
}

type Table = Record<string, unknown>;

function isTable(v: unknown): v is Table {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function strings(v: unknown, what: string, source: string, rule?: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    throw new GitleaksConfigError(source, `${what} must be an array of strings`, rule);
  }
  return v as string[];
}

function compile(pattern: string, extraFlags: string, source: string, rule?: string): RegExp {
  try {
    const { source: js, flags } = translateGoRegex(pattern);
    return new RegExp(js, flags + extraFlags);
  } catch (err) {
    const reason = err instanceof GoRegexSyntaxError || err instanceof SyntaxError ? err.message : String(err);
    throw new GitleaksConfigError(source, `invalid regex: ${reason}`, rule);
  }
}

function parseAllowlist(raw: unknown, source: string, rule?: string): SecretAllowlist {
  if (!isTable(raw)) throw new GitleaksConfigError(source, 'allowlist must be a table', rule);
  const cond = String(raw.condition ?? '').toUpperCase();
  let condition: 'OR' | 'AND';
  if (cond === '' || cond === 'OR' || cond === '||') condition = 'OR';
  else if (cond === 'AND' || cond === '&&') condition = 'AND';
  else throw new GitleaksConfigError(source, `unknown allowlist condition '${cond}'`, rule);
  const target = String(raw.regexTarget ?? 'secret');
  if (target !== 'secret' && target !== 'match' && target !== 'line') {
    throw new GitleaksConfigError(source, `unknown allowlist regexTarget '${target}'`, rule);
  }
  const allowlist: SecretAllowlist = {
    condition,
    regexTarget: target,
    paths: strings(raw.paths, 'allowlist.paths', source, rule).map((p) => compile(p, '', source, rule)),
    regexes: strings(raw.regexes, 'allowlist.regexes', source, rule).map((p) => compile(p, '', source, rule)),
    stopwords: strings(raw.stopwords, 'allowlist.stopwords', source, rule).map((s) => s.toLowerCase()),
  };
  // Commits are meaningless for working-tree and diff scans; an allowlist of only commits allows nothing.
  if (allowlist.paths.length + allowlist.regexes.length + allowlist.stopwords.length === 0 && !raw.commits) {
    throw new GitleaksConfigError(source, 'allowlist has no paths, regexes or stopwords', rule);
  }
  return allowlist;
}

function ruleAllowlists(raw: Table, source: string, id: string): SecretAllowlist[] {
  const out: SecretAllowlist[] = [];
  if (raw.allowlist !== undefined) out.push(parseAllowlist(raw.allowlist, source, id));
  const many = raw.allowlists;
  if (many !== undefined) {
    if (!Array.isArray(many)) throw new GitleaksConfigError(source, 'allowlists must be an array of tables', id);
    for (const a of many) out.push(parseAllowlist(a, source, id));
  }
  return out;
}

/**
 * A pattern that can run across many lines (a PEM block) gets a bigger window than "the
 * keyword's line ± 1": explicit newlines, `[\s\S]`, or a class with `\s` under an
 * unbounded or ≥ 10 repetition, also as an alternative of a repeated group
 * (`(?:[A-Za-z0-9+/=\s]|-[A-Za-z0-9]){64,}`: the private-key body, which may hold dashes).
 * `[\s'"]{0,5}`-style glue stays within the ± 1 line window.
 */
function spansLines(regex: RegExp): boolean {
  const src = regex.source.replace(/\[\^\\n\]/g, '');
  return (
    regex.flags.includes('s') ||
    /\\n|\\r|\\s\\S|\\S\\s/.test(src) ||
    /\[(?!\^)[^\]]*\\s[^\]]*\](?:\|[^()|]*)*\)?(?:[*+]|\{\d+,(?:\d{2,})?\})/.test(src)
  );
}

interface PartialRule {
  id: string;
  description?: string;
  regex?: RegExp;
  path?: RegExp;
  secretGroup?: number;
  entropy?: number;
  checksum?: TokenChecksum;
  keywords: string[];
  allowlists: SecretAllowlist[];
}

function parseRule(raw: unknown, source: string, index: number): PartialRule {
  if (!isTable(raw)) throw new GitleaksConfigError(source, `rules[${index}] must be a table`);
  const id = raw.id;
  if (typeof id !== 'string' || id === '') throw new GitleaksConfigError(source, `rules[${index}] has no id`);
  const rule: PartialRule = {
    id,
    keywords: strings(raw.keywords, 'keywords', source, id).map((k) => k.toLowerCase()),
    allowlists: ruleAllowlists(raw, source, id),
  };
  if (typeof raw.description === 'string') rule.description = raw.description;
  if (raw.regex !== undefined) {
    if (typeof raw.regex !== 'string') throw new GitleaksConfigError(source, 'regex must be a string', id);
    rule.regex = compile(raw.regex, 'gd', source, id);
  }
  if (raw.path !== undefined) {
    if (typeof raw.path !== 'string') throw new GitleaksConfigError(source, 'path must be a string', id);
    rule.path = compile(raw.path, '', source, id);
  }
  if (raw.secretGroup !== undefined) {
    if (typeof raw.secretGroup !== 'number' || !Number.isInteger(raw.secretGroup) || raw.secretGroup < 0) {
      throw new GitleaksConfigError(source, 'secretGroup must be a non-negative integer', id);
    }
    rule.secretGroup = raw.secretGroup;
  }
  if (raw.entropy !== undefined) {
    if (typeof raw.entropy !== 'number' || raw.entropy < 0) {
      throw new GitleaksConfigError(source, 'entropy must be a non-negative number', id);
    }
    rule.entropy = raw.entropy;
  }
  if (raw.checksum !== undefined) {
    if (!TOKEN_CHECKSUMS.includes(raw.checksum as TokenChecksum)) {
      throw new GitleaksConfigError(source, `checksum must be one of ${TOKEN_CHECKSUMS.join(', ')}`, id);
    }
    rule.checksum = raw.checksum as TokenChecksum;
  }
  return rule;
}

function finish(rule: PartialRule, source: string): SecretRule {
  if (!rule.regex && !rule.path) throw new GitleaksConfigError(source, 'rule needs a regex or a path', rule.id);
  if (rule.regex && rule.secretGroup) {
    const groups = new RegExp(`${rule.regex.source}|`).exec('')!.length - 1;
    if (rule.secretGroup > groups) {
      throw new GitleaksConfigError(
        source,
        `secretGroup ${rule.secretGroup} but the regex has ${groups} groups`,
        rule.id,
      );
    }
  }
  const out: SecretRule = {
    id: rule.id,
    description: rule.description ?? '',
    secretGroup: rule.secretGroup ?? 0,
    entropy: rule.entropy ?? 0,
    keywords: [...new Set(rule.keywords)],
    allowlists: rule.allowlists,
    multiline: rule.regex ? spansLines(rule.regex) : false,
  };
  if (rule.regex) out.regex = rule.regex;
  if (rule.path) out.path = rule.path;
  if (rule.checksum) out.checksum = rule.checksum;
  return out;
}

/** gitleaks' extend semantics: the extending config's fields win, lists are concatenated. */
function mergeOver(base: SecretRule, own: PartialRule): PartialRule {
  const merged: PartialRule = {
    id: base.id,
    description: own.description || base.description,
    secretGroup: own.secretGroup || base.secretGroup,
    entropy: own.entropy || base.entropy,
    keywords: [...base.keywords, ...own.keywords],
    allowlists: [...base.allowlists, ...own.allowlists],
  };
  const regex = own.regex ?? base.regex;
  const p = own.path ?? base.path;
  const checksum = own.checksum ?? base.checksum;
  if (checksum) merged.checksum = checksum;
  if (regex) merged.regex = regex;
  if (p) merged.path = p;
  return merged;
}

/**
 * Parses a gitleaks TOML config (v8 format): `[[rules]]` with id, description, regex, path,
 * secretGroup, entropy, keywords, `[[rules.allowlists]]` (or the older `[rules.allowlist]`),
 * global `[[allowlists]]` (with optional `targetRules`) or `[allowlist]`, and `[extend]`
 * with `useDefault`, `path` and `disabledRules`. Multi-part `[[rules.required]]` is read
 * as absent: ignoring it only makes the rule report more, never less.
 */
export function parseGitleaksConfig(toml: string, options: GitleaksConfigOptions = {}): SecretRuleSet {
  const source = options.source ?? 'inline';
  let doc: Table;
  try {
    doc = parseToml(toml) as Table;
  } catch (err) {
    throw new GitleaksConfigError(source, `not valid TOML: ${(err as Error).message.split('\n')[0]}`);
  }
  const rawRules = doc.rules ?? [];
  if (!Array.isArray(rawRules)) throw new GitleaksConfigError(source, 'rules must be an array of tables');
  const own = rawRules.map((r, i) => parseRule(r, source, i));
  const seen = new Set<string>();
  for (const r of own) {
    if (seen.has(r.id)) throw new GitleaksConfigError(source, 'duplicate rule id', r.id);
    seen.add(r.id);
  }

  const globalAllowlists: SecretAllowlist[] = [];
  const targeted = new Map<string, SecretAllowlist[]>();
  const rawGlobal: unknown[] = [];
  if (doc.allowlist !== undefined) rawGlobal.push(doc.allowlist);
  if (doc.allowlists !== undefined) {
    if (!Array.isArray(doc.allowlists)) throw new GitleaksConfigError(source, 'allowlists must be an array of tables');
    rawGlobal.push(...doc.allowlists);
  }
  for (const raw of rawGlobal) {
    const allowlist = parseAllowlist(raw, source);
    const targets = isTable(raw) ? strings(raw.targetRules, 'targetRules', source) : [];
    if (targets.length === 0) globalAllowlists.push(allowlist);
    for (const t of targets) targeted.set(t, [...(targeted.get(t) ?? []), allowlist]);
  }

  let base: SecretRuleSet | undefined;
  let disabled = new Set<string>();
  if (doc.extend !== undefined) {
    if (!isTable(doc.extend)) throw new GitleaksConfigError(source, '[extend] must be a table');
    const { useDefault, path: extendPath, url } = doc.extend;
    disabled = new Set(strings(doc.extend.disabledRules, 'extend.disabledRules', source));
    if (url !== undefined) throw new GitleaksConfigError(source, 'extend.url is not supported (no network)');
    if (useDefault === true && extendPath !== undefined) {
      throw new GitleaksConfigError(source, 'extend.useDefault and extend.path are mutually exclusive');
    }
    if (useDefault === true) {
      if (!options.defaults) throw new GitleaksConfigError(source, 'extend.useDefault without a default rule set');
      base = options.defaults;
    } else if (typeof extendPath === 'string') {
      if (!options.loadExtended) throw new GitleaksConfigError(source, 'extend.path is not allowed here');
      base = options.loadExtended(extendPath);
    }
  }

  const rules = new Map<string, SecretRule>();
  if (base) {
    for (const r of base.rules) if (!disabled.has(r.id)) rules.set(r.id, r);
  }
  for (const r of own) {
    const inherited = rules.get(r.id);
    rules.set(r.id, finish(inherited ? mergeOver(inherited, r) : r, source));
  }
  for (const [id, lists] of targeted) {
    const rule = rules.get(id);
    if (!rule) throw new GitleaksConfigError(source, `allowlist targets unknown rule '${id}'`);
    rules.set(id, { ...rule, allowlists: [...rule.allowlists, ...lists] });
  }
  return {
    rules: [...rules.values()],
    allowlists: [...(base?.allowlists ?? []), ...globalAllowlists],
  };
}

/**
 * Loads a gitleaks config file (synchronously: it runs once at start-up, before any scan).
 * `[extend] path` is resolved relative to the file.
 */
export function loadGitleaksConfigFile(
  file: string,
  options: Omit<GitleaksConfigOptions, 'source' | 'loadExtended'> = {},
  depth = 0,
): SecretRuleSet {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new GitleaksConfigError(file, `cannot read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  return parseGitleaksConfig(text, {
    ...options,
    source: file,
    loadExtended: (p) => {
      // gitleaks stops at two levels of extension; deeper chains are almost always a cycle.
      if (depth >= 2) throw new GitleaksConfigError(file, 'extend chain is deeper than 2');
      return loadGitleaksConfigFile(path.resolve(path.dirname(file), p), options, depth + 1);
    },
  });
}

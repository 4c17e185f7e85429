import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The recorded model conversations of the evaluation fixture (one directory per scenario). */
export const EVAL_FIXTURES = path.resolve(import.meta.dirname, '../fixtures/eval');

/**
 * `kit`, a small library with a history of bug-fix merges, built the same way every time:
 * fixed authors and dates, so every commit has the same sha on every machine (the recorded
 * transcripts are named after the tasks, and the expected reports name them).
 *
 *   PR #1  clamp ignores the lower bound          code + a new test, red on the base → a task
 *   PR #2  slug: tidy, with a test                 code + test, already green → not a task
 *   PR #3  slug replaces only the first space      code + a new test → a task
 *   PR #4  words: document countWords              code only → not a task
 *   fix    seconds() rejects hours                 a direct fix commit with a test → a task
 *   PR #5  countWords("") is 1                     code + a new test → a task
 */
export function buildKitHistory(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let day = 1;
  const env = () => {
    const when = `2026-01-${String(day).padStart(2, '0')}T10:00:00Z`;
    return {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Kit Maintainer',
      GIT_AUTHOR_EMAIL: 'maintainer@kit.example',
      GIT_COMMITTER_NAME: 'Kit Maintainer',
      GIT_COMMITTER_EMAIL: 'maintainer@kit.example',
      GIT_AUTHOR_DATE: when,
      GIT_COMMITTER_DATE: when,
    };
  };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: env(), encoding: 'utf8' });
  const write = (files: Record<string, string>) => {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
  };
  const commit = (message: string) => {
    git('add', '--all');
    git('commit', '-q', '-m', message);
  };
  /** A branch with one commit, merged with GitHub's merge message (the PR's title and body below it). */
  const pullRequest = (number: number, branch: string, files: Record<string, string>, title: string, body: string) => {
    day++;
    git('checkout', '-q', '-b', branch);
    write(files);
    commit(title);
    git('checkout', '-q', 'main');
    git(
      'merge',
      '-q',
      '--no-ff',
      branch,
      '-m',
      `Merge pull request #${number} from acme/${branch}\n\n${title}\n\n${body}`,
    );
    git('branch', '-q', '-D', branch);
  };

  git('init', '-q', '--initial-branch=main');
  write(BASE);
  commit('kit: clamp, slug, seconds and countWords');
  pullRequest(
    1,
    'clamp-lower-bound',
    { 'src/clamp.js': CLAMP_FIXED, 'test/clamp.test.js': CLAMP_TEST_FIXED },
    'clamp ignores the lower bound',
    'clamp(-5, 0, 10) returns -5; a value below the range should come back as the lower bound.',
  );
  pullRequest(
    2,
    'slug-tidy',
    { 'src/slug.js': SLUG_TIDY, 'test/slug.test.js': SLUG_TEST_TIDY },
    'slug: name the lowered text',
    'No change in behaviour; one more test for single words.',
  );
  pullRequest(
    3,
    'slug-every-space',
    { 'src/slug.js': SLUG_FIXED, 'test/slug.test.js': SLUG_TEST_FIXED },
    'slug replaces only the first space',
    // A comment GitHub would not show: the miner drops it from the problem statement.
    "slug('Ship it to everyone') gives 'ship-it to everyone': every space should become a dash.\n<!-- maintainers: the fix is split(/\\s+/) -->",
  );
  pullRequest(4, 'words-doc', { 'src/words.js': WORDS_DOCUMENTED }, 'words: document countWords', 'Docs only.');
  day++;
  write({ 'src/duration.js': DURATION_FIXED, 'test/duration.test.js': DURATION_TEST_FIXED });
  commit("fix: seconds() rejects hours\n\nseconds('2h') throws 'not a duration: 2h'; hours are a duration too.");
  pullRequest(
    5,
    'words-empty',
    { 'src/words.js': WORDS_FIXED, 'test/words.test.js': WORDS_TEST_FIXED },
    'countWords("") is 1',
    'An empty text has no words, and runs of spaces are one separator.',
  );
}

const TEST_HEAD = "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\n";

const BASE: Record<string, string> = {
  'package.json': `${JSON.stringify(
    {
      name: 'kit',
      version: '1.0.0',
      private: true,
      type: 'module',
      scripts: { test: 'node --test --test-reporter=tap' },
    },
    null,
    2,
  )}\n`,
  'README.md': '# kit\n\nSmall helpers: clamp, slug, seconds, countWords.\n',
  'src/clamp.js':
    '/** `value` kept within [min, max]. */\nexport function clamp(value, min, max) {\n  if (value > max) return max;\n  return value;\n}\n',
  'test/clamp.test.js': `${TEST_HEAD}import { clamp } from '../src/clamp.js';\n\ntest('clamp keeps a value inside the range', () => {\n  assert.equal(clamp(5, 0, 10), 5);\n});\n\ntest('clamp lowers a value above the range', () => {\n  assert.equal(clamp(15, 0, 10), 10);\n});\n`,
  'src/slug.js':
    "/** A URL slug: lower case, words joined by dashes. */\nexport function slug(text) {\n  return text.toLowerCase().replace(' ', '-');\n}\n",
  'test/slug.test.js': `${TEST_HEAD}import { slug } from '../src/slug.js';\n\ntest('slug lowercases a word', () => {\n  assert.equal(slug('Hello'), 'hello');\n});\n`,
  'src/duration.js':
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the fixture's own JavaScript, a template literal in it
    'const UNITS = { s: 1, m: 60 };\n\n/** Seconds in a duration such as `90s` or `5m`. */\nexport function seconds(text) {\n  const m = /^(\\d+)(s|m)$/.exec(text);\n  if (!m) throw new Error(`not a duration: ${text}`);\n  return Number(m[1]) * UNITS[m[2]];\n}\n',
  'test/duration.test.js': `${TEST_HEAD}import { seconds } from '../src/duration.js';\n\ntest('seconds reads seconds', () => {\n  assert.equal(seconds('90s'), 90);\n});\n\ntest('seconds reads minutes', () => {\n  assert.equal(seconds('5m'), 300);\n});\n`,
  'src/words.js': "export function countWords(text) {\n  return text.split(' ').length;\n}\n",
  'test/words.test.js': `${TEST_HEAD}import { countWords } from '../src/words.js';\n\ntest('countWords counts words', () => {\n  assert.equal(countWords('one two three'), 3);\n});\n`,
};

const CLAMP_FIXED =
  '/** `value` kept within [min, max]. */\nexport function clamp(value, min, max) {\n  if (value > max) return max;\n  if (value < min) return min;\n  return value;\n}\n';
const CLAMP_TEST_FIXED = `${BASE['test/clamp.test.js']}\ntest('clamp raises a value below the range', () => {\n  assert.equal(clamp(-5, 0, 10), 0);\n});\n`;
const SLUG_TIDY =
  "/** A URL slug: lower case, words joined by dashes. */\nexport function slug(text) {\n  const lower = text.toLowerCase();\n  return lower.replace(' ', '-');\n}\n";
const SLUG_TEST_TIDY = `${BASE['test/slug.test.js']}\ntest('slug keeps a single word', () => {\n  assert.equal(slug('word'), 'word');\n});\n`;
const SLUG_FIXED =
  "/** A URL slug: lower case, words joined by dashes. */\nexport function slug(text) {\n  const lower = text.toLowerCase();\n  return lower.trim().split(/\\s+/).join('-');\n}\n";
const SLUG_TEST_FIXED = `${SLUG_TEST_TIDY}\ntest('slug joins every word with a dash', () => {\n  assert.equal(slug('Ship it to everyone'), 'ship-it-to-everyone');\n});\n`;
const WORDS_DOCUMENTED =
  "/** How many words `text` has, words being separated by spaces. */\nexport function countWords(text) {\n  return text.split(' ').length;\n}\n";
const DURATION_FIXED = BASE['src/duration.js']!.replace('{ s: 1, m: 60 }', '{ s: 1, m: 60, h: 3600 }')
  .replace('(s|m)', '(s|m|h)')
  .replace('`90s` or `5m`', '`90s`, `5m` or `2h`');
const DURATION_TEST_FIXED = `${BASE['test/duration.test.js']}\ntest('seconds reads hours', () => {\n  assert.equal(seconds('2h'), 7200);\n});\n`;
const WORDS_FIXED =
  '/** How many words `text` has, words being separated by spaces. */\nexport function countWords(text) {\n  return text.split(/\\s+/).filter(Boolean).length;\n}\n';
const WORDS_TEST_FIXED = `${BASE['test/words.test.js']}\ntest('countWords gives 0 for an empty text', () => {\n  assert.equal(countWords(''), 0);\n});\n`;

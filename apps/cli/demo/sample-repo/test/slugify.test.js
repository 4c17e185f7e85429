import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slugify } from '../src/slugify.js';

test('lowercases a single word', () => {
  assert.equal(slugify('Hello'), 'hello');
});

test('joins every word with a dash', () => {
  assert.equal(slugify('Hello Big World'), 'hello-big-world');
});

test('ignores surrounding and repeated spaces', () => {
  assert.equal(slugify('  Hello   World '), 'hello-world');
});

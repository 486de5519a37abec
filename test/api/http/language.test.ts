import t from 'tap'
import { pickLanguage } from '../../../api/http/language.js'

t.test('no header, or an empty one, means English', async (t) => {
  t.equal(pickLanguage(undefined), 'en')
  t.equal(pickLanguage(''), 'en')
})

t.test('a plain supported tag is chosen', async (t) => {
  t.equal(pickLanguage('tr'), 'tr')
  t.equal(pickLanguage('en'), 'en')
})

t.test('tags and region subtags match case-insensitively on the primary subtag', async (t) => {
  t.equal(pickLanguage('tr-TR'), 'tr')
  t.equal(pickLanguage('TR'), 'tr')
  t.equal(pickLanguage('en-GB'), 'en')
  t.equal(pickLanguage('EN-us'), 'en')
})

t.test('the highest q-value wins, wherever it sits in the list', async (t) => {
  t.equal(pickLanguage('en;q=0.5, tr;q=0.9'), 'tr')
  t.equal(pickLanguage('tr;q=0.4, en;q=0.6'), 'en')
  t.equal(pickLanguage('en;q=0.1, tr'), 'tr', 'a missing q means 1')
  t.equal(pickLanguage('tr-TR,tr;q=0.9,en-US;q=0.8,en;q=0.7'), 'tr', 'a browser-style list')
  t.equal(pickLanguage('en-US,en;q=0.9,tr;q=0.8'), 'en')
})

t.test('on equal q-values the first listed wins', async (t) => {
  t.equal(pickLanguage('tr, en'), 'tr')
  t.equal(pickLanguage('en, tr'), 'en')
  t.equal(pickLanguage('tr;q=0.5, en;q=0.5'), 'tr')
})

t.test('unsupported languages are skipped, not treated as English', async (t) => {
  t.equal(pickLanguage('de'), 'en', 'nothing supported falls back to English')
  t.equal(pickLanguage('de, fr;q=0.9, tr;q=0.1'), 'tr')
  t.equal(pickLanguage('de-DE, en;q=0.2, tr;q=0.3'), 'tr')
})

t.test('q=0 means "not acceptable"', async (t) => {
  t.equal(pickLanguage('tr;q=0'), 'en')
  t.equal(pickLanguage('en;q=0, tr;q=0.1'), 'tr')
  t.equal(pickLanguage('tr;q=0.000, en;q=0.001'), 'en')
})

t.test('the wildcard stands for English against a less preferred Turkish', async (t) => {
  t.equal(pickLanguage('*'), 'en')
  t.equal(pickLanguage('*;q=0.5, tr;q=0.4'), 'en')
  t.equal(pickLanguage('*;q=0.4, tr;q=0.5'), 'tr')
})

t.test('whitespace around parts and parameters is tolerated', async (t) => {
  t.equal(pickLanguage('  en ; q=0.2 ,  tr ; q=0.8  '), 'tr')
  t.equal(pickLanguage('en;q=0.3,tr;q=0.7'), 'tr')
})

t.test('the q parameter name is case-insensitive (RFC 9110 §5.6.6)', async (t) => {
  t.equal(pickLanguage('en;Q=0.1, tr;Q=0.5'), 'tr')
})

t.test('other parameters do not disturb the q-value', async (t) => {
  t.equal(pickLanguage('en;level=1;q=0.2, tr;q=0.6'), 'tr')
})

t.test('malformed q-values drop that element instead of throwing', async (t) => {
  t.equal(pickLanguage('tr;q=abc'), 'en')
  t.equal(pickLanguage('tr;q=, en;q=0.1'), 'en')
  t.equal(pickLanguage(',,;,;q=0.5,'), 'en')
  t.equal(pickLanguage(';q=1, tr;q=0.2'), 'tr', 'an empty tag is not a language')
})

t.test('an oversized header is read only up to a bound and still answers', async (t) => {
  const huge = 'de;q=0.9, '.repeat(10_000) + 'tr'
  t.equal(pickLanguage(huge), 'en', 'a tag beyond the first 512 characters is not considered')
  t.equal(pickLanguage('tr, ' + 'x'.repeat(100_000)), 'tr')
})

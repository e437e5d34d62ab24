/**
 * core/suggest.ts: "did you mean …?". Close enough to be a typo is a third of the word's length in edits
 * (at least one, at most three), a swap of two neighbours being one edit; a word that starts exactly one
 * candidate is taken as that candidate cut short.
 */
import { describe, expect, it } from 'vitest';
import { closest, editDistance } from '../../../src/core/suggest.js';

describe('edit distance', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('post', 'post')).toBe(0);
    expect(editDistance('post', 'posts')).toBe(1);
    expect(editDistance('posts', 'post')).toBe(1);
    expect(editDistance('post', 'past')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
  });

  it('a swap of two neighbours is one edit, both ways', () => {
    expect(editDistance('stauts', 'status')).toBe(1);
    expect(editDistance('status', 'stauts')).toBe(1);
    expect(editDistance('ab', 'ba')).toBe(1);
    // Not a swap: only one of the two letters matches across.
    expect(editDistance('ab', 'ca')).toBe(2);
  });

  it('is the same either way round', () => {
    for (const [a, b] of [
      ['resume', 'rseume'],
      ['doctor', 'dcotr'],
      ['', 'x'],
      ['follow', 'fol'],
    ] as const)
      expect(editDistance(a, b), `${a}/${b}`).toBe(editDistance(b, a));
  });
});

describe('the closest candidate', () => {
  const commands = ['init', 'up', 'start', 'status', 'post', 'send', 'log', 'pause', 'resume', 'end', 'down'];

  it('allows a third of the word in edits: one for a short word, three at most', () => {
    expect(closest('sned', commands)).toBe('send');
    expect(closest('snde', commands)).toBeNull(); // two edits in a four-letter word
    expect(closest('rsmue', commands)).toBeNull();
    expect(closest('resmeu', commands)).toBe('resume'); // two edits in six letters
    // Twelve letters: three edits, not four.
    expect(closest('enter-delay-x', ['enter-delay-ms'])).toBe('enter-delay-ms');
    expect(closest('abcdefghixyz', ['abcdefghijkl'])).toBe('abcdefghijkl');
    expect(closest('abcdefghwxyz', ['abcdefghijkl'])).toBeNull();
  });

  it('a short word still gets one edit', () => {
    expect(closest('dwn', commands)).toBe('down');
    expect(closest('ip', commands)).toBe('up');
  });

  it('ignores case, and answers with the candidate as it is written', () => {
    expect(closest('STAUTS', commands)).toBe('status');
    expect(closest('Status', ['STATUS'])).toBe('STATUS');
  });

  it('of two as close, the first listed', () => {
    expect(closest('pst', ['post', 'past'])).toBe('post');
    expect(closest('pst', ['past', 'post'])).toBe('past');
  });

  it('a word that starts exactly one candidate is that candidate cut short', () => {
    expect(closest('--fol', ['--follow', '--json'])).toBe('--follow');
    expect(closest('re', ['resume', 'rewind'])).toBeNull(); // two candidates start with it: no guess
    expect(closest('r', ['resume'])).toBeNull(); // one letter is no prefix worth a guess
  });

  it('nothing close and nothing it starts: no suggestion', () => {
    expect(closest('frobnicate', commands)).toBeNull();
    expect(closest('x', [])).toBeNull();
  });
});

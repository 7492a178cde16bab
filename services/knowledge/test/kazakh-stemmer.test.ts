import { describe, expect, it } from 'vitest';
import { queryWords, words } from '../src/domain/index-text.ts';
import { kazakhStems, normaliseStem } from '../src/domain/kazakh-stemmer.ts';
import { closest, maxTypos, tsQueryText, typoDistance, typoNeighbours } from '../src/domain/query.ts';

/** Two forms match when their stem sets share a stem (what the index and the query do). */
function match(a: string, b: string): boolean {
  const sa = new Set(kazakhStems(a));
  return kazakhStems(b).some((s) => sa.has(s));
}

describe('Kazakh stemmer', () => {
  it('takes off the suffix chains of issue 21: plural → possessive → case, and -дағы/-дегі', () => {
    for (const [lemma, form] of [
      ['кітап', 'кітаптарды'],
      ['мектеп', 'мектептегі'],
      ['теңдеу', 'теңдеулерді'],
      ['оқулық', 'оқулықтарымызды'],
      ['баға', 'бағаларын'],
      ['бұрыш', 'бұрыштарының'],
      ['кітап', 'кітаптар'],
    ]) {
      expect(match(lemma, form), `${lemma} ~ ${form}`).toBe(true);
      expect(match(form, lemma), `${form} ~ ${lemma}`).toBe(true);
    }
  });

  it('strips each slot at most once, in order, and keeps every stem on the way', () => {
    expect(kazakhStems('оқулықтарымызды')).toEqual(
      expect.arrayContaining(['оқулықтарымызды', 'оқулықтар', normaliseStem('оқулық')]),
    );
    expect(kazakhStems('баласының')).toEqual(expect.arrayContaining(['баласы', 'бала']));
    // The n-forms of the cases (-н, -нда) only come off when a possessive follows them off.
    expect(kazakhStems('бағаларын')).toContain('баға');
    expect(kazakhStems('қолын')).not.toContain('қолы');
    expect(kazakhStems('жанында')).toContain('жан');
  });

  it('follows vowel harmony: a back suffix does not come off a front stem, nor a front one off a back stem', () => {
    expect(kazakhStems('мектептар')).not.toContain('мектеп');
    expect(kazakhStems('кітаптер')).not.toContain('кітап');
    // Loanwords ending in и/у take either; the instrumental has one form for both.
    expect(kazakhStems('магазинде')).toContain('магазин');
    expect(kazakhStems('баласымен')).toContain('бала');
    expect(kazakhStems('теңдеуге')).toContain('теңдеу');
  });

  it('chooses the possessive form by the sound before it', () => {
    expect(kazakhStems('баласы')).toContain('бала');
    expect(kazakhStems('кітабы')).toContain('кітап');
    // -сы after a consonant and -ы after a vowel are not possessives.
    expect(kazakhStems('кітапсы')).not.toContain('кітап');
    expect(kazakhStems('тауы')).toContain('тау');
  });

  it('normalises consonant alternation and the dropped vowel, so the forms of a word agree', () => {
    expect(match('кітап', 'кітабымызды')).toBe(true);
    expect(match('сабақ', 'сабағы')).toBe(true);
    expect(match('жүрек', 'жүрегі')).toBe(true);
    expect(match('халық', 'халқының')).toBe(true);
    expect(match('орын', 'орны')).toBe(true);
  });

  it('matches the base form of a word that ends like a suffix with its inflected forms', () => {
    expect(match('тақта', 'тақтада')).toBe(true);
    expect(match('тақтаны', 'тақта')).toBe(true);
  });

  it('does not make different words one', () => {
    expect(match('кітап', 'мектеп')).toBe(false);
    expect(match('бала', 'баға')).toBe(false);
    expect(match('сан', 'сана')).toBe(false);
  });

  it('keeps short words, numbers and mixed tokens as they are', () => {
    expect(kazakhStems('ол')).toEqual(['ол']);
    expect(kazakhStems('2024')).toEqual(['2024']);
    expect(kazakhStems('abc1')).toEqual(['abc1']);
  });
});

describe('query words', () => {
  it('lower-cases, folds ё, drops Kazakh stop words and repeats, and bounds the count', () => {
    expect(words('Ёлка и ЁЖ')).toEqual(['елка', 'и', 'еж']);
    expect(queryWords('Кітап және мектеп үшін кітап').map((w) => w.word)).toEqual(['кітап', 'мектеп']);
    expect(queryWords(Array.from({ length: 40 }, (_, i) => `сөз${i}`).join(' '))).toHaveLength(12);
  });

  it('builds a tsquery: lexemes of a word OR-ed, words AND-ed or OR-ed, quotes escaped', () => {
    expect(tsQueryText([['дроб', 'дробь'], ['урок']], 'all')).toBe("('дроб' | 'дробь') & ('урок')");
    expect(tsQueryText([['a'], ['b']], 'any')).toBe("('a') | ('b')");
    expect(tsQueryText([["o'k"]], 'all')).toBe("('o''k')");
    expect(tsQueryText([[]], 'all')).toBeNull();
  });
});

describe('typos', () => {
  it('counts edits with transpositions as one', () => {
    expect(typoDistance('пифогора', 'пифагора')).toBe(1);
    expect(typoDistance('дискрименант', 'дискриминант')).toBe(1);
    expect(typoDistance('кітпа', 'кітап')).toBe(1);
    expect(typoDistance('урок', 'урок')).toBe(0);
    expect([maxTypos(4), maxTypos(8), maxTypos(12)]).toEqual([1, 2, 3]);
  });

  it('keeps only the closest corrections, within the length allowance', () => {
    const n = typoNeighbours('пифогор', ['пифагор', 'пифагоров', 'факт', 'пифогор']);
    expect(n).toEqual(
      [
        { word: 'пифагор', distance: 1 },
        { word: 'пифагоров', distance: 3 },
      ].filter((x) => x.distance <= maxTypos(7)),
    );
    expect(closest([...n, { word: 'пифагорей', distance: 1 }])).toEqual(['пифагор', 'пифагорей']);
    expect(typoNeighbours('урак', ['урок', 'ураган'])).toEqual([{ word: 'урок', distance: 1 }]);
  });
});

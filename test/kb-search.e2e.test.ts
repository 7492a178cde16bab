// Issue 21 through the edge: /kb search with an MCP client, for each failure the issue lists.
import { createTestEnv, type TestEnv } from '@studium/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentClient, connectAgent, data } from './support/clients.ts';
import { startKnowledge } from './support/knowledge.ts';
import { startEdge, startEnrollment } from './support/stack.ts';

let env: TestEnv;
let enrollment: Awaited<ReturnType<typeof startEnrollment>>;
let knowledge: Awaited<ReturnType<typeof startKnowledge>>;
let edge: Awaited<ReturnType<typeof startEdge>>;
let agent: AgentClient;

beforeAll(async () => {
  env = await createTestEnv('kb-search-e2e');
  enrollment = await startEnrollment(env);
  knowledge = await startKnowledge(env);
  edge = await startEdge(env);
  await enrollment.admin.upsertUser('aliya@test', 'Әлия', ['Student']);
  await enrollment.admin.upsertOrganization('school', 'Мектеп');
  await enrollment.admin.addMember('school', 'aliya@test', 'member');
  agent = await connectAgent('v2', `${edge.url}/kb`, (await enrollment.admin.issueToken('aliya@test')).token);
});

afterAll(async () => {
  await agent?.close();
  await edge?.close();
  await knowledge?.close();
  await enrollment?.close();
  await env?.cleanup();
});

type Hit = { id: string; title: string; score: number };

async function create(body: string): Promise<string> {
  return (data(await agent.callTool('create_note', { project: 'school', body })) as { id: string }).id;
}

async function search(query: string, limit = 10): Promise<Hit[]> {
  return (data(await agent.callTool('search', { query, limit })) as { results: Hit[] }).results;
}

async function ids(query: string): Promise<string[]> {
  return (await search(query)).map((h) => h.id);
}

// 24 Russian words about a shop, in other forms than the queries below: with «Сәлем!» and the
// title, one word in 28 has Kazakh letters, which makes the note Kazakh for the language heuristic.
const SHOP =
  'Задача про покупки в магазине: мама купила три товара, заплатила пятьсот тенге и получила сдачу. ' +
  'Сколько стоит один из товаров, если сдачи было сорок?';

describe('a note counted as Kazakh keeps its Russian word forms', () => {
  let hello: string;
  let salem: string;
  let names: string;
  let lesson: string;
  beforeAll(async () => {
    hello = await create(`# Задача первая\n\nПривет! ${SHOP}`);
    salem = await create(`# Задача вторая\n\nСәлем! ${SHOP}`);
    names = await create(
      '# Проект по экологии\n\nӘлия и Нұрлан подготовили доклад о загрязнении рек в нашем районе. ' +
        'Они собрали пробы воды в трёх местах, сравнили результаты с нормами и построили графики. ' +
        'На уроке ребята рассказали классу, откуда в реке берётся мусор и что может сделать каждый житель. ' +
        'Учитель предложил оформить результаты в виде стенгазеты и показать её на родительском собрании. ' +
        'В следующей четверти проект продолжится: летом Әлия и Нұрлан хотят повторить замеры.',
    );
    lesson = await create(
      '# Бөлшектерді қосу\n\nБүгінгі сабақта оқушылар бөлшектерді қосуды үйренді. Мұғалім тақтаға мысалдар жазды, ' +
        'оқушылар дәптерлеріне шығарды. Для родителей: дома повторите сложение дробей.',
    );
  });

  it('finds the note that opens with «Сәлем!» by the Russian forms, like the one that opens with «Привет!»', async () => {
    const langs = await knowledge.db
      .selectFrom('notes')
      .select(['id', 'lang'])
      .where('id', 'in', [hello, salem])
      .execute();
    expect(Object.fromEntries(langs.map((n) => [n.id, n.lang]))).toEqual({ [hello]: 'ru', [salem]: 'kk' });
    for (const q of ['покупка', 'товар', 'сдача', 'магазин']) {
      const found = await ids(q);
      expect(found, q).toContain(hello);
      expect(found, q).toContain(salem);
    }
  });

  it('finds a Russian note naming «Әлия и Нұрлан» by Russian forms', async () => {
    expect((await ids('загрязнение реки'))[0]).toBe(names);
    expect(await ids('стенгазета')).toContain(names);
    expect(await ids('Әлияның замер')).toContain(names);
  });

  it('finds a Kazakh lesson note with one Russian sentence by «дробь» and «дроби», not only «дробей»', async () => {
    for (const q of ['дробь', 'дроби', 'дробей', 'дробями']) expect(await ids(q), q).toContain(lesson);
    // And by its Kazakh words, in other forms, also mixed with the Russian ones in one query.
    expect(await ids('бөлшек')).toContain(lesson);
    expect((await ids('бөлшектердің сложения'))[0]).toBe(lesson);
  });
});

describe('Kazakh morphology beyond hunspell-kk', () => {
  it('finds each form of the issue by its base form (and the plural «кітаптар» finds «кітап»)', async () => {
    const pairs: Array<[string, string]> = [
      ['мектеп', '# Мектептегі іс-шаралар\n\nМектептегі апталық кестесі жаңартылды.'],
      ['теңдеу', '# Алгебра жоспары\n\nОқушылар теңдеулерді шешуді үйренеді.'],
      ['оқулық', '# Кітапхана\n\nОқулықтарымызды жыл соңында тапсырамыз.'],
      ['баға', '# Тоқсан\n\nМұғалімдер оқушылардың бағаларын журналға қойды.'],
      ['бұрыш', '# Геометрия\n\nҮшбұрыштың бұрыштарының қосындысы 180 градус.'],
      ['кітаптар', '# Оқу\n\nӘр оқушы бір кітап алып келеді.'],
    ];
    const made = [];
    for (const [, body] of pairs) made.push(await create(body));
    for (const [i, [q]] of pairs.entries()) expect((await ids(q))[0], q).toBe(made[i]);
  });
});

describe('typos in titles and bodies', () => {
  let pythagoras: string;
  let discriminant: string;
  let misspelt: string;
  beforeAll(async () => {
    pythagoras = await create('# Теорема Пифагора\n\nКвадрат гипотенузы равен сумме квадратов катетов.');
    discriminant = await create('# Квадратные уравнения\n\nСначала находим дискриминант, потом корни.');
    misspelt = await create('# Черновик к уроку\n\nНе забыть про дискримнант и формулу корней.');
  });

  it('forgives a one-vowel typo of a title word («Пифогора»)', async () => {
    expect((await ids('Пифогора'))[0]).toBe(pythagoras);
    expect((await ids('теорема Пифогора'))[0]).toBe(pythagoras);
  });

  it('forgives a typo of a body word («дискрименант»)', async () => {
    // «дискримнант» (the draft's own typo) is one edit away too, so both come first.
    expect((await ids('дискрименант')).slice(0, 2).sort()).toEqual([discriminant, misspelt].sort());
  });

  it('ranks a match found only through a correction below the exact matches', async () => {
    // «дискриминанта» is in no note as written: the exact match is by its stem, the note that
    // says «дискримнант» only through the correction.
    const hits = await search('дискриминанта');
    const order = hits.map((h) => h.id);
    expect(order[0]).toBe(discriminant);
    expect(order).toContain(misspelt);
    expect(order.indexOf(misspelt)).toBeGreaterThan(order.indexOf(discriminant));
    const scores = hits.map((h) => h.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });
});

describe("typo corrections never depend on other people's notes", () => {
  /** The /kb agent of `user`, the one member of an organization of its own. */
  async function memberElsewhere(user: string, name: string, org: string, title: string) {
    await enrollment.admin.upsertUser(user, name, ['Student']);
    await enrollment.admin.upsertOrganization(org, title);
    await enrollment.admin.addMember(org, user, 'member');
    return connectAgent('v2', `${edge.url}/kb`, (await enrollment.admin.issueToken(user)).token);
  }

  it("corrects a word that only another organization's note has, and finds the caller's own near form", async () => {
    const bek = await memberElsewhere('bek@test', 'Бек', 'other', 'Другая школа');
    try {
      // «хлорофилл» as written is only in the other school's note; aliya wrote «хлорофил».
      data(await bek.callTool('create_note', { project: 'other', body: '# Пигменты\n\nВ листьях есть хлорофилл.' }));
      const own = await create('# Листья\n\nЗелёный цвет листьям даёт хлорофил.');
      const hits = await search('хлорофилл');
      // Had the other school's word counted as known, no correction would run and nothing be found.
      expect(hits.map((h) => h.id)).toEqual([own]);
    } finally {
      await bek.close();
    }
  });

  it("is not crowded out by another organization's words nearer the typo than the caller's own", async () => {
    const dana = await memberElsewhere('dana@test', 'Дана', 'third', 'Третья школа');
    try {
      // «фотосинтезс» is a typo of aliya's «фотосинтез». The other school's note holds it with one
      // letter more, in 42 ways: each is nearer to the typo by trigrams than «фотосинтез» is. A
      // vocabulary shared by all tenants hands them every one of the nearest places a correction
      // is looked for, and aliya's own word is never reached.
      const near = [...'абвгджзийклмнопрстуфхцчшщъыьэюяәғқңөұүһі'].map((c) => `фотосинтезс${c}`);
      data(await dana.callTool('create_note', { project: 'third', body: `# Слова\n\n${near.join(' ')}` }));
      const own = await create('# Свет и листья\n\nРастения живут благодаря процессу фотосинтез.');
      expect((await search('фотосинтезс')).map((h) => h.id)).toEqual([own]);
    } finally {
      await dana.close();
    }
  });
});

describe('capabilities', () => {
  it('whoami says semantic search is off without an embeddings provider, and search runs on text', async () => {
    const who = data(await agent.callTool('whoami', {})) as { capabilities: Record<string, unknown> };
    expect(who.capabilities).toMatchObject({
      vector: false,
      vectorStore: null,
      semantic: 'off',
      vectorScanLimit: null,
    });
    const r = data(await agent.callTool('search', { query: 'дробь' })) as { modes: string[] };
    expect(r.modes).toEqual(['fts', 'trigram']);
  });
});

describe('English and hostile queries', () => {
  it('stems English words', async () => {
    const en = await create('# Science fair\n\nPupils are running experiments with computers and measuring results.');
    for (const q of ['run', 'experiment', 'computer', 'measured results']) expect((await ids(q))[0], q).toBe(en);
  });

  it('indexes a body grown past 100,000 characters of distinct words (a tsvector holds 1 MB at most)', async () => {
    const letters = [...'бвгдзклмнпрстшқғңәөұүі'];
    const endings = ['тарымыздағы', 'ларының', 'дерімізді', 'сындағы', 'леріңізге'];
    // Distinct words: a counter written in 22 letters, then a vowel and a suffix chain.
    const word = (i: number) => {
      let s = '';
      for (let n = i, k = 0; k < 5; k++, n = Math.floor(n / letters.length)) s += letters[n % letters.length];
      return `${s}а${endings[i % endings.length]}`;
    };
    const part = (from: number) => {
      const out: string[] = [];
      for (let i = from, n = 0; n < 99_000; i++) {
        out.push(word(i));
        n += out[out.length - 1].length + 1;
      }
      return out.join(' ');
    };
    const first = part(0);
    const made = data(
      await agent.callTool('create_note', { project: 'school', body: `# Үлкен жазба\n\n${first}` }),
    ) as {
      id: string;
      versionToken: string;
    };
    const grown = await agent.callTool('edit_note', {
      id: made.id,
      versionToken: made.versionToken,
      mode: 'append',
      content: part(first.split(' ').length),
    });
    expect(grown.isError).toBeFalsy();
    expect(await ids(word(3))).toContain(made.id);
  });

  it('answers queries of tsquery syntax, stop words only or many words without an error', async () => {
    for (const q of ["'&|!:*()<->\\", 'и в на', 'және мен', 'a the of', '😀 ✓']) {
      const r = await agent.callTool('search', { query: q });
      expect(r.isError, q).toBeFalsy();
    }
    const long = Array.from({ length: 200 }, (_, i) => `слово${i}`).join(' ');
    expect((await agent.callTool('search', { query: long })).isError).toBeFalsy();
    // Twelve unknown long words: each is probed for typos, within the bound of the parser.
    const gibberish = Array.from({ length: 12 }, (_, i) => 'жқбвгд'.repeat(10).slice(i, i + 60)).join(' ');
    expect((await agent.callTool('search', { query: gibberish })).isError).toBeFalsy();
  });
});

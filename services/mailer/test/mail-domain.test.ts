import { describe, expect, it } from 'vitest';
import { isPermanentMailError, isValidAddress } from '../src/domain/errors.ts';
import { composeReleaseMail } from '../src/domain/release-mail.ts';

describe('composeReleaseMail', () => {
  it('writes the Russian release e-mail with the title, the summary and how to start', () => {
    const mail = composeReleaseMail({
      to: 'ann@example.com',
      full_name: 'Анна',
      course: 'c1',
      title: 'Переговоры',
      summary: 'Как договариваться.',
    });
    expect(mail.subject).toBe('Курс «Переговоры» открыт');
    expect(mail.text).toMatch(
      /^Здравствуйте, Анна!\n\nКурс «Переговоры», о выходе которого вы просили сообщить, открыт\./,
    );
    expect(mail.text).toContain('\n\nКак договариваться.\n\n');
    expect(mail.text).toContain('попросите своего ИИ-агента записать вас на курс');
  });

  it('does without a name and a summary', () => {
    const mail = composeReleaseMail({ to: 'a@b', full_name: ' ', course: 'c', title: 'T', summary: '' });
    expect(mail.text.startsWith('Здравствуйте!\n\nКурс «T»')).toBe(true);
    expect(mail.text).not.toContain('\n\n\n');
  });
});

describe('mail errors', () => {
  it('treats 5xx replies and envelope errors without a reply as permanent, 4xx and network errors as temporary', () => {
    expect(isPermanentMailError({ responseCode: 550, code: 'EENVELOPE' })).toBe(true);
    expect(isPermanentMailError({ responseCode: 554, code: 'EMESSAGE' })).toBe(true);
    expect(isPermanentMailError({ code: 'EENVELOPE' })).toBe(true);
    expect(isPermanentMailError({ responseCode: 451, code: 'EENVELOPE' })).toBe(false);
    expect(isPermanentMailError({ code: 'ECONNECTION' })).toBe(false);
    expect(isPermanentMailError(new Error('boom'))).toBe(false);
  });

  it('accepts a plain address and rejects anything else', () => {
    expect(isValidAddress('ann@example.com')).toBe(true);
    expect(isValidAddress('student@test')).toBe(true);
    expect(isValidAddress('not-an-address')).toBe(false);
    expect(isValidAddress('a b@c')).toBe(false);
    expect(isValidAddress('a@b, c@d')).toBe(false);
  });
});

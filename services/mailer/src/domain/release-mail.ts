import type { ReleaseMailJob } from '@studium/contracts';

/** An e-mail ready to send: subject and plain text. */
export interface ComposedMail {
  subject: string;
  text: string;
}

/** The Russian "course is open" e-mail to a subscriber of an announcement. */
export function composeReleaseMail(job: ReleaseMailJob): ComposedMail {
  const name = job.full_name.trim();
  const summary = job.summary.trim();
  const paragraphs = [
    name ? `Здравствуйте, ${name}!` : 'Здравствуйте!',
    `Курс «${job.title}», о выходе которого вы просили сообщить, открыт.`,
    ...(summary ? [summary] : []),
    `Как начать: попросите своего ИИ-агента записать вас на курс — например, напишите ему «Запиши меня на курс „${job.title}“». ` +
      'Агент найдёт курс в каталоге, запишет вас и сразу начнёт первое занятие.',
    'Это письмо пришло, потому что вы подписались на анонс курса; больше писем о нём не будет.',
    '— Studium',
  ];
  return { subject: `Курс «${job.title}» открыт`, text: `${paragraphs.join('\n\n')}\n` };
}

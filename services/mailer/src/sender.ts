import { createHash } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';

/** One e-mail to send; `id` is the job id (stable across retries). */
export interface OutgoingMail {
  id: string;
  from: string;
  to: string;
  subject: string;
  text: string;
}

/** Where e-mails go: an SMTP server, or .eml files in a directory. */
export interface MailSender {
  /** Sends one e-mail; rejects with nodemailer's error (responseCode, code) on failure. */
  send(mail: OutgoingMail): Promise<{ messageId: string; file?: string }>;
  close(): void;
}

/** Message-ID derived from the job id: a retried job sends the same message, so receivers can de-duplicate. */
function messageId(id: string): string {
  return `<${createHash('sha256').update(id).digest('hex').slice(0, 32)}.release-mail@studium>`;
}

/** The nodemailer message of an e-mail; both senders build it the same way. */
function envelope(mail: Parameters<MailSender['send']>[0]) {
  return { from: mail.from, to: mail.to, subject: mail.subject, text: mail.text, messageId: messageId(mail.id) };
}

/** An SMTP sender (nodemailer) for a URL like smtp://host:port. */
export function smtpSender(url: string): MailSender {
  const transport = nodemailer.createTransport(url);
  return {
    async send(mail) {
      const info = await transport.sendMail(envelope(mail));
      return { messageId: info.messageId };
    },
    close() {
      transport.close();
    },
  };
}

/**
 * A sender that writes each e-mail as an .eml file (no SMTP server configured: local runs and
 * demos). The file is named after the job, so a retried job overwrites its own file.
 */
export function fileSender(dir: string): MailSender {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(mail) {
      const info = await transport.sendMail(envelope(mail));
      await mkdir(dir, { recursive: true });
      const file = join(dir, `${mail.id.replace(/[^A-Za-z0-9._@-]/g, '_')}.eml`);
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, info.message as Buffer);
      await rename(tmp, file);
      return { messageId: info.messageId, file };
    },
    close() {
      transport.close();
    },
  };
}

/** The sender the configuration asks for: SMTP when a URL is given, .eml files otherwise. */
export function createSender(opts: { smtpUrl?: string; mailDir: string }): MailSender {
  return opts.smtpUrl ? smtpSender(opts.smtpUrl) : fileSender(opts.mailDir);
}

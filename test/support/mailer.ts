import type { AddressInfo } from 'node:net';
import type { TestEnv } from '@studium/testing';
import { SMTPServer } from 'smtp-server';
import { createMailer, type Mailer } from '../../services/mailer/src/app.ts';
import { releaseMailQueueName } from '../../services/mailer/src/config.ts';
import { busDeliveries } from '../../services/mailer/src/deliveries.ts';
import { createSender } from '../../services/mailer/src/sender.ts';

/** An e-mail as the SMTP sink received it: envelope, raw text and the decoded subject and body. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  text: string;
  headers: Record<string, string>;
}

/** What the sink answers to RCPT TO: null accepts, a number is the SMTP reply code of a rejection. */
export type RcptPolicy = (address: string, attempt: number) => number | null;

/** A real SMTP server on a random local port (the only stand-in of the mail path: SMTP is a third party). */
export interface SmtpSink {
  url: string;
  /** Accepted messages, in arrival order. */
  messages: ReceivedMail[];
  /** Every RCPT TO the sink saw, accepted or not. */
  rcpts: string[];
  /** Recipients of the messages whose data arrived and whose answer (250) is not given yet. */
  readonly accepting: string[];
  close(): Promise<void>;
}

/** How the sink behaves: who it rejects, and how long it holds each message before answering 250. */
export interface SinkOptions {
  policy?: RcptPolicy;
  /** Delay between the end of DATA and the 250; a client gone meanwhile never had it accepted. */
  acceptDelayMs?: number;
}

/** Starts the SMTP sink; `policy` may reject recipients (550 permanent, 451 temporary). */
export async function startSmtpSink(options: RcptPolicy | SinkOptions = {}): Promise<SmtpSink> {
  const { policy = () => null, acceptDelayMs = 0 } = typeof options === 'function' ? { policy: options } : options;
  const messages: ReceivedMail[] = [];
  const rcpts: string[] = [];
  const closed = new Set<string>();
  const accepting: string[][] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      rcpts.push(address.address);
      const code = policy(address.address, rcpts.filter((a) => a === address.address).length);
      if (code === null) return callback();
      const err = Object.assign(new Error(code >= 500 ? 'Mailbox unavailable' : 'Try again later'), {
        responseCode: code,
      });
      callback(err);
    },
    onClose(session) {
      closed.add(session.id);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const rcptTo = session.envelope.rcptTo.map((r) => r.address);
        accepting.push(rcptTo);
        setTimeout(() => {
          accepting.splice(accepting.indexOf(rcptTo), 1);
          // The client died before the answer: the message was never accepted.
          if (closed.has(session.id)) return callback(new Error('client gone'));
          messages.push({ from, to: rcptTo, raw, ...decodeMail(raw) });
          callback();
        }, acceptDelayMs);
      });
    },
  });
  // A client killed in the middle of a conversation (the crash tests) resets its socket: expected.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = ((server as unknown as { server: { address(): AddressInfo } }).server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    rcpts,
    get accepting() {
      return accepting.flat();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Decodes the headers, the RFC 2047 subject and a single-part text body (base64 or quoted-printable). */
export function decodeMail(raw: string): { subject: string; text: string; headers: Record<string, string> } {
  const split = raw.indexOf('\r\n\r\n') >= 0 ? raw.indexOf('\r\n\r\n') : raw.indexOf('\n\n');
  const head = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of head.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  const subject = (headers.subject ?? '').replace(
    /=\?([^?]+)\?([BbQq])\?([^?]*)\?=\s*/g,
    (_m, _charset: string, enc: string, data: string) =>
      enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodeQp(data.replace(/_/g, ' ')),
  );
  const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase();
  const text =
    encoding === 'base64'
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
      : encoding === 'quoted-printable'
        ? decodeQp(body.replace(/=\r?\n/g, ''))
        : body;
  return { subject, text: text.replace(/\r\n/g, '\n'), headers };
}

function decodeQp(s: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(s[i], 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * The real mailer worker, in this process, on the test's queue (`<prefix>-release-mail`): SMTP
 * when `smtpUrl` is given, .eml files in `mailDir` otherwise.
 */
export function startMailer(env: TestEnv, opts: { smtpUrl?: string; mailDir?: string; from?: string } = {}) {
  const sender = createSender({ smtpUrl: opts.smtpUrl, mailDir: opts.mailDir ?? '.studium/mail' });
  const queueName = releaseMailQueueName(env.prefix);
  const mailer: Mailer = createMailer({
    redisUrl: env.redisUrl,
    queueName,
    sender,
    deliveries: busDeliveries(env.bus, env.log, 5_000),
    from: opts.from ?? 'Studium <no-reply@studium.test>',
    log: env.log,
  });
  return {
    queueName,
    async stop() {
      await mailer.stop();
      sender.close();
    },
  };
}

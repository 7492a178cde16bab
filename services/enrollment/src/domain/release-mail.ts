import type { ReleaseMailJob } from '@studium/contracts';

/**
 * The BullMQ job id of a subscriber's release e-mail: deterministic, so the same e-mail queued
 * twice is one job. BullMQ rejects ids that are bare integers or contain `:` outside the
 * three-part form, so `:` inside the parts is escaped.
 */
export function releaseMailJobId(course: string, user: string): string {
  const part = (s: string) => s.replaceAll('%', '%25').replaceAll(':', '%3A');
  return `release-mail:${part(course)}:${part(user)}`;
}

/** The job payload of one subscriber's release e-mail (the login is the e-mail address). */
export function releaseMailJob(
  subscriber: { user: string; full_name: string },
  course: { course: string; title: string; summary: string },
): ReleaseMailJob {
  return {
    to: subscriber.user,
    full_name: subscriber.full_name,
    course: course.course,
    title: course.title,
    summary: course.summary,
  };
}

import { PERSONAL, type Principal } from '@studium/contracts';
import { startEnrollment } from '../../../../test/support/stack.ts';

/** The real enrollment service in this process (the shared starter of the e2e tests). */
export const startEnrollmentService = startEnrollment;

/** A student principal as the edge would send it. */
export function student(user: string, space: string = PERSONAL): Principal {
  return { user, full_name: user, roles: ['Student'], scope: 'write', space };
}

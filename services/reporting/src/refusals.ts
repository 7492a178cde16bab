import { refuse } from '@studium/contracts';

// Every refusal of the reporting service: one function per spec code, with its Russian message.

/** not_your_student: the employee is in none of the caller's organizations (where the caller manages). */
export function notYourStudent(user: string) {
  return refuse('not_your_student', `Сотрудник «${user}» не состоит ни в одной вашей организации`, { user });
}

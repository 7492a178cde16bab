import { z } from 'zod';
import { defineTool, READ } from '../../tool.ts';

/** An organization of the student as whoami shows it. */
export const OrganizationView = z.object({
  name: z.string().describe('Имя организации: его передают в space'),
  title: z.string(),
  role: z.enum(['manager', 'member']),
  suspended: z.boolean(),
});

/** whoami: the account, its organizations and the selected space. */
export const whoami = defineTool({
  name: 'whoami',
  surface: 'student',
  service: 'enrollment',
  title: 'Кто вошёл',
  description:
    'Под какой учётной записью вошёл ученик, его организации и выбранное пространство space. ' +
    'Зовите, когда курсов или каталога нет: «курсов нет» и «вошли не тем аккаунтом» выглядят одинаково. ' +
    'Если выбрана приостановленная организация, space — personal, а selected_space называет её.',
  input: z.object({}),
  output: z.object({
    user: z.string(),
    full_name: z.string(),
    organizations: z.array(OrganizationView),
    space: z
      .string()
      .describe('Пространство, в котором работают списки: выбранное учеником, пока оно доступно, иначе personal'),
    selected_space: z
      .string()
      .optional()
      .describe('Организация, которую выбрал ученик, когда она приостановлена (тогда space — personal)'),
  }),
  annotations: READ,
  refusals: [],
});

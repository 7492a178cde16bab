import type { z } from 'zod';
import type { SERVICES } from '../../scripts/services.ts';
import { AiChatConfig } from '../../services/ai-chat/src/config.ts';
import { CoursesConfig } from '../../services/courses/src/config.ts';
import { EdgeConfig } from '../../services/edge/src/config.ts';
import { EnrollmentConfig } from '../../services/enrollment/src/config.ts';
import { HomeworkConfig } from '../../services/homework/src/config.ts';
import { KnowledgeConfig } from '../../services/knowledge/src/config.ts';
import { LessonsConfig } from '../../services/lessons/src/config.ts';
import { MailerConfig } from '../../services/mailer/src/config.ts';
import { ReportingConfig } from '../../services/reporting/src/config.ts';

/** A deployable of the platform, by the name its manifests and `npm start` give it. */
export type DeployableName = (typeof SERVICES)[number]['name'];

/** Each deployable's configuration schema, as its main.ts loads it: what its process reads from the environment. */
export const CONFIG_SCHEMAS: Record<DeployableName, z.ZodObject> = {
  edge: EdgeConfig,
  enrollment: EnrollmentConfig,
  courses: CoursesConfig,
  lessons: LessonsConfig,
  homework: HomeworkConfig,
  knowledge: KnowledgeConfig,
  reporting: ReportingConfig,
  'ai-chat': AiChatConfig,
  mailer: MailerConfig,
};

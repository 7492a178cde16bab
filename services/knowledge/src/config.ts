import { BaseConfig } from '@studium/platform';
import { z } from 'zod';

/** Environment of the knowledge service. */
export const KnowledgeConfig = BaseConfig.extend({
  /** Keys per set of student notes (facts; one course's notes), canonical profile keys not counted. */
  NOTE_LIMIT: z.coerce.number().int().min(1).default(40),
  /** OpenAI-compatible embeddings API base (…/v1); empty: search runs on full text and trigrams. */
  EMBEDDINGS_URL: z.string().default(''),
  EMBEDDINGS_MODEL: z.string().default('text-embedding-3-small'),
  EMBEDDINGS_API_KEY: z.string().default(''),
  /** Database connections opened and warmed at start (the Kazakh dictionary loads once per connection). */
  /**
   * Without pgvector, vectors are compared by scanning the plain column (about 0.3 µs per
   * dimension and note here): only while the searched notes hold at most this many vectors;
   * above it search stays on text. See the README, "Semantic".
   */
  VECTOR_SCAN_LIMIT: z.coerce.number().int().min(0).default(200),
  WARM_CONNECTIONS: z.coerce.number().int().min(0).max(10).default(4),
  /** How long a user's memberships (enrollment.whoami) are reused. */
  MEMBERSHIP_TTL_MS: z.coerce.number().int().min(0).default(5_000),
});
export type KnowledgeConfig = z.infer<typeof KnowledgeConfig>;

/** The service's PostgreSQL schema. */
export const SCHEMA = 'knowledge';

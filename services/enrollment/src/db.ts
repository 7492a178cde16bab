import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<string, string | undefined, string>;

/** Tables of the `enrollment` schema. */
export interface EnrollmentDb {
  users: {
    id: string;
    full_name: string;
    roles: string[];
    selected_space: Generated<string>;
    created_at: Generated<string>;
  };
  organizations: {
    name: string;
    title: string;
    suspended: Generated<boolean>;
    created_at: Generated<string>;
  };
  memberships: {
    org: string;
    user_id: string;
    role: 'manager' | 'member';
    created_at: Generated<string>;
  };
  api_tokens: {
    id: string;
    user_id: string;
    token_hash: string;
    label: Generated<string>;
    scope: 'read' | 'write';
    expires_at: string | null;
    revoked_at: Timestamp | null;
    created_at: Generated<string>;
  };
}

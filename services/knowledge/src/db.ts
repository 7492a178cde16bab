import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<string, string | undefined, string>;

/** Tables of the `knowledge` schema. */
export interface KnowledgeDb {
  student_notes: {
    user_id: string;
    course: string;
    key: string;
    kind: 'fact' | 'project' | 'observation';
    text: string;
    course_title: string;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  projects: { id: string; space: string; slug: string; title: string; created_at: Generated<string> };
  project_aliases: { handle: string; project: string };
  notes: {
    id: string;
    project: string | null;
    class: 'user-doc' | 'agent-memory';
    owner: string | null;
    category: string | null;
    folder: string;
    title: string;
    body: string;
    type: string | null;
    tags: string[];
    frontmatter: ColumnType<Record<string, unknown>, string, string>;
    version: number;
    lang: string;
    tsv: ColumnType<string, never, never>;
    index_version: ColumnType<number, never, never>;
    search_text: string;
    embedding: number[] | null;
    created_by: string;
    created_kind: string;
    created_at: Timestamp;
    updated_by: string;
    updated_kind: string;
    updated_at: Timestamp;
    deleted_at: string | null;
    deleted_by: string | null;
  };
  note_revisions: {
    note: string;
    version: number;
    action: string;
    title: string;
    folder: string;
    body: string;
    tags: string[];
    by_user: string;
    by_kind: string;
    at: Timestamp;
  };
  note_aliases: { project: string; title_key: string; note: string; title: string };
  links: {
    id: string;
    from_note: string;
    type: string;
    to_note: string | null;
    to_title: string | null;
    to_key: string;
    origin: 'tool' | 'body';
    created_at: Generated<string>;
  };
  activity: {
    id: Generated<number>;
    note: string;
    project: string | null;
    owner: string | null;
    action: string;
    by_user: string;
    by_kind: string;
    at: Timestamp;
  };
  visits: { user_id: string; project: string; at: string };
}

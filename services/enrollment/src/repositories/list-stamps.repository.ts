import type pg from 'pg';

/** The change stamps a student's course lists depend on, and the database clock when read. */
export interface ListStampsRow {
  /** Stamp of what every student's list reads (cards, organization catalogs, programs). */
  shared: string;
  /** Stamp of the student's own rows (enrollments, subscriptions, program memberships). */
  own: string;
  /** The database's now() in epoch milliseconds: deadlines turn overdue by this clock. */
  now: number;
}

// One prepared statement, planned once per connection: it precedes every list call.
const READ = {
  name: 'enrollment_list_stamps_read',
  text: `select coalesce(max(stamp) filter (where key = '*'), '-') as shared,
    coalesce(max(stamp) filter (where key = $1), '-') as own,
    (extract(epoch from now()) * 1000)::float8 as now
    from list_stamps where key in ('*', $1)`,
};

/** Reads the stamps the triggers of migration 0004 keep. */
export class ListStampsRepository {
  constructor(private readonly pool: pg.Pool) {}

  async read(user: string): Promise<ListStampsRow> {
    const { rows } = await this.pool.query<ListStampsRow>({ ...READ, values: [user] });
    return rows[0];
  }
}

-- Change stamps of what the student's course lists (list_catalog, list_my_courses) read, for
-- their ETags: key '*' for what every student's list reads (cards, organization catalogs,
-- programs), a user id for one student's own rows (enrollments, subscriptions, program
-- memberships). Memberships and suspensions reach the lists through the space scope, which the
-- ETag holds itself. Triggers bump the stamps in the writing transaction, so no write path can
-- forget, and a stamp becomes visible together with the change it stands for.
--
-- A stamp is a random value, compared only for equality: it never comes back, not even after the
-- database is restored to an earlier point or fails over to a replica that lost commits, so an
-- ETag can never be confirmed against data it was not made from.
create table list_stamps (
  key text primary key,
  stamp text not null
);

-- Triggers are statement-level with transition tables (a trigger with them serves one event;
-- TRUNCATE names no rows and bumps the shared stamp), so a bulk write bumps once, and a statement
-- that touched no row (a replayed card older than the stored one, access granted twice) bumps
-- nothing. Users are bumped in sorted order, so two bulk writes never wait on each other's stamp
-- rows in opposite orders. The service's own transactions write shared or per-user tables, never
-- both (deleting a program by hand cascades into both; the two kinds of rows are then taken in
-- statement order, and a deadlock with a concurrent writer would cost a retry, not a wrong list).
-- The functions keep the schema's search_path: a writer with another one (psql, a restore) still
-- bumps this schema's stamps.
create function bump_list_stamp_shared() returns trigger language plpgsql
set search_path from current as $$
begin
  -- Nested: a statement naming a transition table the event lacks fails even when not reached.
  if tg_op = 'INSERT' then
    if not exists (select 1 from new_rows) then return null; end if;
  elsif tg_op in ('UPDATE', 'DELETE') then
    if not exists (select 1 from old_rows) then return null; end if;
  end if;
  insert into list_stamps (key, stamp) values ('*', gen_random_uuid()::text)
  on conflict (key) do update set stamp = excluded.stamp;
  return null;
end $$;

create function bump_list_stamp_users() returns trigger language plpgsql
set search_path from current as $$
begin
  if tg_op = 'INSERT' then
    insert into list_stamps (key, stamp)
    select u, gen_random_uuid()::text from (select distinct user_id as u from new_rows order by 1) s
    on conflict (key) do update set stamp = excluded.stamp;
  elsif tg_op = 'DELETE' then
    insert into list_stamps (key, stamp)
    select u, gen_random_uuid()::text from (select distinct user_id as u from old_rows order by 1) s
    on conflict (key) do update set stamp = excluded.stamp;
  else
    insert into list_stamps (key, stamp)
    select u, gen_random_uuid()::text from (
      select user_id as u from new_rows union select user_id from old_rows order by 1
    ) s
    on conflict (key) do update set stamp = excluded.stamp;
  end if;
  return null;
end $$;

-- Four triggers on each table the lists read: insert, update and delete (each with its transition
-- tables), and truncate (no rows to name: it bumps the shared stamp).
do $$
declare
  t record;
begin
  for t in select * from (values
    ('catalog', 'bump_list_stamp_shared'),
    ('org_courses', 'bump_list_stamp_shared'),
    ('programs', 'bump_list_stamp_shared'),
    ('program_courses', 'bump_list_stamp_shared'),
    ('enrollments', 'bump_list_stamp_users'),
    ('subscriptions', 'bump_list_stamp_users'),
    ('program_members', 'bump_list_stamp_users')
  ) as v (tab, fn)
  loop
    execute format('create trigger %I after insert on %I referencing new table as new_rows '
      'for each statement execute function %I()', t.tab || '_list_stamp_ins', t.tab, t.fn);
    execute format('create trigger %I after update on %I referencing old table as old_rows new table as new_rows '
      'for each statement execute function %I()', t.tab || '_list_stamp_upd', t.tab, t.fn);
    execute format('create trigger %I after delete on %I referencing old table as old_rows '
      'for each statement execute function %I()', t.tab || '_list_stamp_del', t.tab, t.fn);
    execute format('create trigger %I after truncate on %I '
      'for each statement execute function bump_list_stamp_shared()', t.tab || '_list_stamp_trunc', t.tab);
  end loop;
end $$;

-- mark_goal's write in one statement (one round trip, its own transaction). The service decides
-- everything a refusal needs and what the marks lead to on a state it read before (or kept from
-- its last write on the session): the run's status, its marks and the course's active release.
--
-- 1. Without a lock, that state is compared with the current one. When it moved (another replica
--    wrote, a release was published) the answer is `stale` with the current state, and nothing is
--    locked or written: the service decides again on it.
-- 2. The run is locked without waiting (a concurrent writer makes this fail with 55P03, which the
--    service answers busy); then, in writeRun's order, the run must be live (run_archived) and the
--    session open (session_closed), and the state must still be the one compared in 1 (else
--    `busy`: another request changed the session at this very moment, the spec's busy).
-- 3. The mark is written, the run moved, the session touched and the events added to the outbox,
--    their `at` set to the mark's time.
--
-- No pg_notify: the service wakes its own outbox relay after the commit (a notification would
-- wake the relay of every service on the database and serializes notifying commits); other
-- replicas' relays poll.
create function mark_goal_marks(p_run text) returns jsonb
language sql stable
as $$
  select coalesce(jsonb_object_agg(m.goal, m.status), '{}'::jsonb) from goal_marks m where m.run_id = p_run
$$;

create function mark_goal_write(
  p_run text,
  p_session text,
  p_course text,
  p_goal text,
  p_objective text,
  p_status text,
  p_evidence text,
  p_resume text,
  -- The state the decision was made on: the run's status, its marks ({goal: status}) and the
  -- course's active release (null: none recorded).
  p_seen_status text,
  p_seen_marks jsonb,
  p_seen_release text,
  -- The run's status the marks lead to.
  p_next text,
  -- Events, in order: [{subject, payload}], payload an envelope whose data.at is set here.
  p_events jsonb
) returns table (
  outcome text,
  session_status text,
  marked_at timestamptz,
  -- With `stale`: the current state, marks as [goal, objective, status, evidence, session_id, marked_at].
  run_status text,
  marks json,
  active_release text
)
language plpgsql
as $$
declare
  r record;
  v_status text;
  v_release text;
  s_status text;
  v_at timestamptz;
  v_at_text text;
begin
  select runs.status into v_status from runs where runs.id = p_run;
  select a.release into v_release from active_releases a where a.course = p_course;
  if v_status is distinct from p_seen_status
    or v_release is distinct from p_seen_release
    or mark_goal_marks(p_run) <> p_seen_marks then
    return query select 'stale'::text, null::text, null::timestamptz, v_status,
      (select coalesce(json_agg(json_build_array(m.goal, m.objective, m.status, m.evidence, m.session_id, m.marked_at)), '[]')
         from goal_marks m where m.run_id = p_run),
      v_release;
    return;
  end if;

  select runs.status, runs.archived_at, runs.started_at, runs.covered_at into r
    from runs where runs.id = p_run for update nowait;
  if not found then
    raise exception 'run % vanished', p_run;
  end if;
  if r.archived_at is not null then
    return query select 'run_archived'::text, null::text, null::timestamptz, null::text, null::json, null::text;
    return;
  end if;
  select sessions.status into s_status from sessions where sessions.id = p_session;
  if not found then
    raise exception 'session % vanished', p_session;
  end if;
  if s_status <> 'open' then
    return query select 'session_closed'::text, s_status, null::timestamptz, null::text, null::json, null::text;
    return;
  end if;
  if r.status <> p_seen_status or mark_goal_marks(p_run) <> p_seen_marks then
    return query select 'busy'::text, null::text, null::timestamptz, null::text, null::json, null::text;
    return;
  end if;

  insert into goal_marks as m (run_id, goal, objective, status, evidence, session_id)
    values (p_run, p_goal, p_objective, p_status, p_evidence, p_session)
    on conflict (run_id, goal) do update set
      objective = excluded.objective,
      status = excluded.status,
      evidence = excluded.evidence,
      session_id = excluded.session_id,
      marked_at = now()
    returning m.marked_at into v_at;

  if p_next <> r.status
    or (r.started_at is null and p_status <> 'open')
    or (p_next = 'covered' and r.covered_at is null)
    or p_resume is not null then
    update runs set
      status = p_next,
      started_at = case when runs.started_at is null and p_status <> 'open' then v_at else runs.started_at end,
      covered_at = case when p_next = 'covered' and runs.covered_at is null then v_at else runs.covered_at end,
      resume_from = coalesce(p_resume, runs.resume_from)
    where runs.id = p_run;
  end if;
  update sessions set last_activity_at = now() where sessions.id = p_session;

  -- The same text as the service's timestamps (Date#toISOString: milliseconds, UTC).
  v_at_text := to_char(v_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
  insert into outbox (subject, payload)
    select e.value ->> 'subject', jsonb_set(e.value -> 'payload', '{data,at}', to_jsonb(v_at_text))
    from jsonb_array_elements(p_events) with ordinality as e(value, n)
    order by e.n;
  return query select 'ok'::text, null::text, v_at, null::text, null::json, null::text;
end;
$$;

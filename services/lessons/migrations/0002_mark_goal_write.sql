-- mark_goal's write in one statement (one round trip, its own transaction): the service reads the
-- session, the run's status and its marks first (no lock), decides everything a refusal needs and
-- what the marks lead to, and hands the outcome here. Under the run's lock (taken without waiting:
-- a concurrent writer makes it fail with 55P03, which the service answers busy) this re-checks, in
-- the order writeRun does, that the run is live (run_archived) and the session open
-- (session_closed), then that the run's status and marks are still the ones the decision was made
-- on; when another write landed in between, it answers busy (the spec's "the session is being
-- changed by another request") and writes nothing. Otherwise it writes the mark, moves the run,
-- touches the session and adds the events to the outbox, their `at` set to the mark's time.
-- No pg_notify: the service wakes its own outbox relay after the commit (a notification would
-- wake the relay of every service on the database and serializes notifying commits); other
-- replicas' relays poll.
create function mark_goal_write(
  p_run text,
  p_session text,
  p_goal text,
  p_objective text,
  p_status text,
  p_evidence text,
  p_resume text,
  -- The run's status and its marks ({goal: status}) as read before the decision.
  p_seen_status text,
  p_seen_marks jsonb,
  -- The run's status the marks lead to.
  p_next text,
  -- Events, in order: [{subject, payload}], payload an envelope whose data.at is set here.
  p_events jsonb
) returns table (outcome text, session_status text, marked_at timestamptz)
language plpgsql
as $$
declare
  r record;
  s_status text;
  v_at timestamptz;
  v_at_text text;
begin
  select runs.status, runs.archived_at, runs.started_at, runs.covered_at into r
    from runs where runs.id = p_run for update nowait;
  if not found then
    raise exception 'run % vanished', p_run;
  end if;
  if r.archived_at is not null then
    return query select 'run_archived'::text, null::text, null::timestamptz;
    return;
  end if;
  select sessions.status into s_status from sessions where sessions.id = p_session;
  if not found then
    raise exception 'session % vanished', p_session;
  end if;
  if s_status <> 'open' then
    return query select 'session_closed'::text, s_status, null::timestamptz;
    return;
  end if;
  if r.status <> p_seen_status
    or coalesce((select jsonb_object_agg(m.goal, m.status) from goal_marks m where m.run_id = p_run), '{}'::jsonb)
       <> p_seen_marks then
    return query select 'busy'::text, null::text, null::timestamptz;
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
  return query select 'ok'::text, null::text, v_at;
end;
$$;

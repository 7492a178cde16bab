-- Whether the course was ever announced: only then does publish_course ask enrollment to e-mail
-- subscribers (on every call, so a retry after enrollment was away still sends them).
alter table courses add column announced boolean not null default false;
update courses set announced = true where status = 'upcoming';

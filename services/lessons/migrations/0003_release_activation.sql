-- The active release follows the order activations happened in courses (the course's card
-- revision at the activation), not the version number: re-activating an older version (the same
-- map published again) makes it active here too. 0: recorded before activations were carried.
alter table active_releases add column activation bigint not null default 0;

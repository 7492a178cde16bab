-- start_session's delta counts a project's changes since a moment (ActivityRepository.countSince):
-- by time within the project, not a scan of the project's whole history.
create index if not exists activity_project_at on activity (project, at);

-- Issue 31: a conversation is listed by its course and lesson titles (set from the lesson's
-- outline when the conversation opens, and from each start_lesson reply); a tutor reply that did
-- not end (stopped, the model failed or fell silent) is kept with the note the student was shown,
-- so a reload shows it as such, and the model never reads it again as an answer of its own.
alter table tutor_conversations add column course_title text, add column lesson_title text;
alter table tutor_messages add column note text;

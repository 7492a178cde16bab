-- The review queue names people and courses in words (issue 31). The student's full name as the
-- platform last gave it: from the principal of the student's own hand-in, or from the lesson pass
-- that assigned the homework; null on rows written before, which show the login instead.
alter table submissions add column student_name text;
-- The courses a reviewer may filter the queue by are read with a skip scan over this index.
create index submissions_course on submissions (course);

// The course-space rule moved to the contracts (lessons and homework decide access from a projection).
export { type CourseEnrollment, type CourseSpace, chooseCourseSpace } from '@studium/contracts';

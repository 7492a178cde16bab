import { artifact } from '@studium/contracts';
import { endpoint } from '@studium/platform';
import { type CourseGateway, caller } from '../courses.ts';
import type { DocumentRepository } from '../repositories/document.repository.ts';
import { readDocuments } from './documents.ts';

/** artifact: the student's course documents in the space of the course's session, else the selected one. */
export function artifactHandler(deps: { gateway: CourseGateway; documents: DocumentRepository }) {
  return endpoint(artifact, async (args, ctx) => readDocuments(deps, caller(ctx), args, args.space));
}

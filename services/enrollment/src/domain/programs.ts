// The program rules moved to the contracts (lessons and homework decide access from a projection).
export {
  type ProgramCourse,
  type ProgramLock,
  type ProgramRow,
  type ProgramRowView as ProgramView,
  programsOf,
} from '@studium/contracts';

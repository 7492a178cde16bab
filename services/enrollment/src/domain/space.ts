// The space scope rule moved to the contracts (lessons and homework decide access from a projection).
export { type OrgMembership, resolveSpace, type SpaceScope } from '@studium/contracts';

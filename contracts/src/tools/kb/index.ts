import type { ToolContract } from '../../tool.ts';
import { get_my_projects, kb_whoami, start_session } from './bootstrap.ts';
import { list_notes, recent_activity } from './discover.ts';
import { get_note, recall, search } from './read.ts';
import { move_folder, move_note, rename_folder, rename_note, rename_project } from './reorganize.ts';
import { create_notes, link_many } from './scale.ts';
import { create_note, delete_note, edit_note, link, remember_about_project, remember_about_user } from './write.ts';

export * from './shapes.ts';
export { WrittenNote } from './write.ts';
export {
  create_note,
  create_notes,
  delete_note,
  edit_note,
  get_my_projects,
  get_note,
  kb_whoami,
  link,
  link_many,
  list_notes,
  move_folder,
  move_note,
  recall,
  recent_activity,
  remember_about_project,
  remember_about_user,
  rename_folder,
  rename_note,
  rename_project,
  search,
  start_session,
};

/** The 21 tools of spec 004 served at /kb, in the spec's order. */
export const kbTools = [
  start_session,
  kb_whoami,
  get_my_projects,
  list_notes,
  recent_activity,
  search,
  get_note,
  recall,
  create_note,
  remember_about_user,
  remember_about_project,
  edit_note,
  delete_note,
  link,
  move_note,
  rename_note,
  move_folder,
  rename_folder,
  rename_project,
  create_notes,
  link_many,
] as const satisfies readonly ToolContract[];

import { refuse } from '@studium/contracts';

/** note_not_found (forget): no note with this key in the set. */
export function studentNoteNotFound(key: string, course: string | null) {
  return refuse(
    'note_not_found',
    course
      ? `Заметки с ключом ${key} при этом курсе нет: проверьте ключ по my_notes с course`
      : `Заметки-факта с ключом ${key} нет: проект и наблюдение ищутся вместе с course — проверьте по my_notes`,
    { key, course },
  );
}

/** projectNotFound: no accessible project with this handle. */
export function projectNotFound(project: string) {
  return refuse(
    'projectNotFound',
    `«${project}» жобасы жоқ немесе қолжетімсіз: хэндлді get_my_projects жауабынан алыңыз`,
    {
      project,
    },
  );
}

/** noteNotFound: no visible note with this reference. */
export function noteNotFound(ref: string) {
  return refuse(
    'noteNotFound',
    `«${ref}» жазбасы табылмады (немесе себетте): id-ді search не list_notes жауабынан алыңыз`,
    {
      ref,
    },
  );
}

/** versionConflict: the note changed since the caller read it. */
export function versionConflict(id: string, current: string) {
  return refuse(
    'versionConflict',
    'Жазба сіз оқығаннан кейін өзгерді: get_note арқылы қайта оқып, түзетуді қайталаңыз',
    {
      id,
      currentVersionToken: current,
    },
  );
}

/** titleMissing: the body has no `# H1` (or the title is empty). */
export function titleMissing() {
  return refuse('titleMissing', 'Тақырып жоқ: body бірінші жолы «# Тақырып» болсын');
}

/** titleTaken: another live note of the project has this title. */
export function titleTaken(title: string, id: string) {
  return refuse('titleTaken', `«${title}» тақырыбы бұл жобада бос емес: бар жазбаны edit_note арқылы толықтырыңыз`, {
    title,
    id,
  });
}

/** invalidPath: a folder path with an empty, '.' or '..' segment, or too deep. */
export function invalidPath(path: string) {
  return refuse('invalidPath', `«${path}» жолы жарамсыз: сегменттерді / арқылы жазыңыз, . және .. болмасын`, { path });
}

/** folderNotFound: the folder holds no live shared note (folders exist only through their notes). */
export function folderNotFound(path: string) {
  return refuse('folderNotFound', `«${path}» қалтасы бос немесе жоқ: жолды list_notes жауабынан алыңыз`, { path });
}

/** emptyQuery: an empty query, topic or observation. */
export function emptyText(field: string) {
  return refuse('emptyQuery', `${field} бос болмауы керек`, { field });
}

/** A refusal raised inside a transaction to roll it back. */
export class Refused extends Error {
  constructor(readonly reply: ReturnType<typeof refuse>) {
    super(reply.error.code);
  }
}

export function editRefusal(
  code: 'sectionNotFound' | 'snippetNotFound' | 'snippetNotUnique' | 'unknownEditMode',
  count?: number,
) {
  switch (code) {
    case 'sectionNotFound':
      return refuse(code, 'Мұндай тақырыпты бөлім жоқ: get_note detailed жауабындағы outline-нан алыңыз');
    case 'snippetNotFound':
      return refuse(code, 'find сниппеті жазбада жоқ: мәтінді get_note-тан дәл көшіріңіз', { count: count ?? 0 });
    case 'snippetNotUnique':
      return refuse(code, 'find сниппеті бірнеше рет кездеседі: бірегей болатындай ұзартыңыз', { count });
    case 'unknownEditMode':
      return refuse(code, 'mode: append, prepend, replace, replaceSection немесе findReplace', {
        allowed: ['append', 'prepend', 'replace', 'replaceSection', 'findReplace'],
      });
    default: {
      const never: never = code;
      return never;
    }
  }
}

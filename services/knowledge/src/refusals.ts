import { NOTE_KINDS, refuse } from '@studium/contracts';

// Every refusal of the knowledge service: one function per code, with its message (the student
// notes' in Russian, the knowledge base's in Kazakh, as their specs give them).

// --- student notes (remember, forget) ---

/** unknown_note_kind: a kind other than fact, project or observation. */
export function unknownNoteKind(kind: string) {
  return refuse('unknown_note_kind', 'Вид заметки — fact, project или observation', { kind, allowed: NOTE_KINDS });
}

/** note_key_required: an empty key. */
export function noteKeyRequired() {
  return refuse('note_key_required', 'Нужен ключ заметки, например role или pace', {});
}

/** note_text_required: an empty text. */
export function noteTextRequired() {
  return refuse('note_text_required', 'Пустая заметка: передайте text', {});
}

/** not_your_session: a project or observation note without a session, or with another student's (or none). */
export function notYourSession(session: string | undefined) {
  if (!session) {
    return refuse(
      'not_your_session',
      'Для проекта и наблюдения нужен session — идентификатор занятия из start_lesson',
      {},
    );
  }
  return refuse('not_your_session', 'Занятие не найдено или принадлежит другому ученику', { session });
}

/** note_limit_reached: the set has as many keys as it may. */
export function noteLimitReached(limit: number) {
  return refuse(
    'note_limit_reached',
    'Ключей заметок уже предельно много: пишите по существующим ключам (они замещаются) или удалите лишнее через forget',
    { limit },
  );
}

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

/** titleTaken: another live note of the project has this title, now or as a former title (alias). */
export function titleTaken(title: string, id: string, alias = false) {
  if (alias) {
    return refuse(
      'titleTaken',
      `«${title}» — бұл жобадағы басқа жазбаның бұрынғы тақырыбы (alias): [[${title}]] сілтемелері соған апарады. Басқа тақырып таңдаңыз`,
      { title, id, alias: true },
    );
  }
  return refuse('titleTaken', `«${title}» тақырыбы бұл жобада бос емес: бар жазбаны edit_note арқылы толықтырыңыз`, {
    title,
    id,
  });
}

/** invalidPath: a folder path with an empty, '.' or '..' segment, or too deep. */
export function invalidPath(path: string) {
  return refuse('invalidPath', `«${path}» жолы жарамсыз: сегменттерді / арқылы жазыңыз, . және .. болмасын`, { path });
}

/** folderIntoItself: move_folder's new parent is the folder itself or a folder inside it. */
export function folderIntoItself(path: string, newParent: string) {
  return refuse(
    'folderIntoItself',
    `«${path}» қалтасын өз ішіне («${newParent}») жылжыту мүмкін емес: жаңа аталық қалта бұл қалтаның сыртында болсын`,
    { path, newParent },
  );
}

/** folderNotFound: the folder holds no live shared note (folders exist only through their notes). */
export function folderNotFound(path: string) {
  return refuse('folderNotFound', `«${path}» қалтасы бос немесе жоқ: жолды list_notes жауабынан алыңыз`, { path });
}

/** emptyQuery: an empty query, topic or observation. */
export function emptyText(field: string) {
  return refuse('emptyQuery', `${field} бос болмауы керек`, { field });
}

/** ambiguousRef: a title found in several projects. */
export function ambiguousRef(ref: string, candidates: Array<{ id: string; project: string | null }>) {
  return refuse('ambiguousRef', 'Бұл тақырып бірнеше жобада бар: project беріңіз', { ref, candidates });
}

/** tooMany: more notes or links in one call than it takes. */
export function tooMany(limit: number, count: number) {
  return refuse('tooMany', `Бір шақыруда ең көбі ${limit}: топтарға бөліңіз`, { limit, count });
}

/** invalidHandle: the space's root project keeps its handle; a slug is lower-case letters, digits and hyphens. */
export function invalidHandle(slug: string, root: boolean) {
  return refuse(
    'invalidHandle',
    root
      ? 'Кеңістіктің түбірлік жобасының хэндлі — кеңістік аты, оны өзгертуге болмайды'
      : 'slug: кіші әріптер, сандар және сызықша',
    { slug },
  );
}

/** handleTaken: another project of the space has this handle. */
export function handleTaken(handle: string) {
  return refuse('handleTaken', `«${handle}» хэндлі бос емес`, { handle });
}

/** linkTargetMissing: a link without its type, or without a target (to or toTitle). */
export function linkTargetMissing(missing: 'type' | 'target') {
  return missing === 'type'
    ? refuse('linkTargetMissing', 'Байланыс түрі (type) бос болмауы керек', { field: 'type' })
    : refuse('linkTargetMissing', 'Нысана керек: to (id) немесе toTitle (тақырып)', {});
}

/** crossSpaceLink: a link to a note of another space, or by title from a personal-memory note. */
export function crossSpaceLink(from: string, to?: string) {
  return to !== undefined
    ? refuse(
        'crossSpaceLink',
        'Екі жазба да бір кеңістікте болуға тиіс: басқа кеңістіктегі жазбаға байланыс болмайды',
        {
          from,
          to,
        },
      )
    : refuse('crossSpaceLink', 'Жеке жадтағы жазбадан тақырып бойынша байланыс болмайды', { from });
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

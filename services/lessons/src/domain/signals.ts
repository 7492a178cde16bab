/** Observations start_lesson passes to the agent as phrases; each kind at most once per session. */
export type SignalKind = 'abandoned_starts' | 'document_not_started' | 'deadline';

export interface SignalFacts {
  /** Earlier sessions of this lesson that ended with no item marked. */
  emptySessionsBefore: number;
  objectivesTotal: number;
  objectivesCovered: number;
  /** The lesson collects document sections, and none of them is filled; null when unknown. */
  documentUntouched: boolean | null;
  overdue: boolean;
  deadline: string | null;
  /** Lessons of the course not passed yet. */
  lessonsLeft: number;
  now: Date;
  /** Kinds already said in this session. */
  said: readonly string[];
}

const WEEK_MS = 7 * 24 * 3600 * 1000;
export const MAX_SIGNALS = 3;

/** The signals to say now, with their kinds (to remember them as said). */
export function signals(f: SignalFacts): Array<{ kind: SignalKind; text: string }> {
  const out: Array<{ kind: SignalKind; text: string }> = [];
  if (f.emptySessionsBefore >= 2) {
    out.push({
      kind: 'abandoned_starts',
      text: 'Ученик уже не раз начинал этот урок и бросал в самом начале, не отметив ни одного пункта: спросите, что мешало, и начните с его задачи.',
    });
  }
  if (f.documentUntouched === true && f.objectivesTotal > 0 && f.objectivesCovered * 2 >= f.objectivesTotal) {
    out.push({
      kind: 'document_not_started',
      text: 'Половина целей урока разобрана, а документ урока ещё не начат: соберите с учеником первый раздел.',
    });
  }
  if (f.overdue) {
    out.push({
      kind: 'deadline',
      text: 'Срок курса уже прошёл: скажите об этом ученику один раз, без нажима, — урок засчитается как поздний.',
    });
  } else if (f.deadline && f.lessonsLeft > 0) {
    const weeks = (new Date(f.deadline).getTime() - f.now.getTime()) / WEEK_MS;
    if (weeks <= 0 || f.lessonsLeft / weeks >= 3) {
      out.push({
        kind: 'deadline',
        text: `До срока курса нужно проходить от трёх уроков в неделю (осталось уроков: ${f.lessonsLeft}): скажите об этом ученику один раз, без нажима.`,
      });
    }
  }
  return out.filter((s) => !f.said.includes(s.kind)).slice(0, MAX_SIGNALS);
}

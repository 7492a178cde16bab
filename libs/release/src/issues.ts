import type { ReleaseWarning } from '@studium/contracts';

/** A path inside a YAML file: field names and list indexes (0-based), e.g. `questions[2].options`. */
export type FieldPath = ReadonlyArray<string | number>;

/** Where something is in the map: the file (relative to the map folder), and the line when known. */
export interface MapPlace {
  file: string;
  line: number | null;
  column: number | null;
  /** Path inside the file (`questions[2].options`); empty for the file as a whole. */
  path: string;
}

/** A validation error of a course map, located as precisely as the source allows. */
export interface MapError extends MapPlace {
  message: string;
}

/** A warning of the build: the release warning plus, when the build knows it, where in the map it comes from. */
export interface MapWarning extends ReleaseWarning {
  at: MapPlace | null;
}

/** Renders a field path the way authors read it: `questions[2].options`. */
export function pathText(path: FieldPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${seg}` : seg;
  }
  return out;
}

/** `file:line:column` (or just `file`) of a place. */
export function placeText(place: MapPlace): string {
  return place.line === null ? place.file : `${place.file}:${place.line}:${place.column ?? 1}`;
}

/** One line per error: `chapters/basics/l1/quiz.yaml:12:9: questions[2].options: two options are marked correct`. */
export function formatError(error: MapError): string {
  return `${placeText(error)}: ${error.path ? `${error.path}: ` : ''}${error.message}`;
}

/** One line per warning: `warning [code] place (file:line): message`. */
export function formatWarning(warning: MapWarning): string {
  const at = warning.at ? ` (${placeText(warning.at)}${warning.at.path ? ` ${warning.at.path}` : ''})` : '';
  return `warning [${warning.code}] ${warning.place}${at}: ${warning.message}`;
}

/** Collects every error and warning of one build instead of stopping at the first. */
export class Diagnostics {
  readonly errors: MapError[] = [];
  readonly warnings: MapWarning[] = [];

  /** Records an error at a place. */
  error(place: MapPlace, message: string): void {
    this.errors.push({ ...place, message });
  }

  /** Records a warning of the map itself (not derived from the release). */
  warn(code: string, place: string, message: string, at: MapPlace | null): void {
    this.warnings.push({ code, place, message, at });
  }
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length];
}

/** The message for a field the format does not know (usually a typo), naming the closest known one. */
export function unknownFieldMessage(key: string, known: string[]): string {
  const near = known.find((k) => distance(k, key) <= 2);
  const hint = near ? ` (did you mean '${near}'?)` : '';
  return `unknown field '${key}'${hint}${known.length ? `; fields here: ${known.join(', ')}` : ''}`;
}

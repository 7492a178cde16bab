/** ISO-8601 as the admin CLI accepts it: a date, or a date and time with an optional zone. */
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/**
 * Reads an ISO-8601 date (`2030-01-31`, `2030-01-31T18:00`, `2030-01-31T18:00:00+05:00`) as an
 * ISO timestamp; throws naming `what` otherwise. A date alone is midnight UTC, and a time without
 * a zone is UTC too, so the result never depends on the operator's machine.
 */
export function parseIsoDate(value: string, what: string): string {
  const m = ISO_8601.exec(value.trim());
  if (m) {
    const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone = 'Z'] = m;
    const days = new Date(Date.UTC(Number(y), Number(mo), 0)).getUTCDate();
    const valid =
      Number(mo) >= 1 && Number(mo) <= 12 && Number(d) >= 1 && Number(d) <= days && Number(h) < 24 && Number(mi) < 60;
    const offset = zone.toUpperCase() === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.length > 3 ? zone.slice(-2) : '00'}`;
    const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${frac.slice(0, 4)}${offset}`);
    if (valid && Number(s) < 60 && !Number.isNaN(ms)) return new Date(ms).toISOString();
  }
  throw new Error(`${what} must be an ISO-8601 date such as 2030-01-31 or 2030-01-31T18:00:00Z, not "${value}"`);
}

// What the benches read from the services' /metrics (Prometheus text format) and from nats-server's
// monitoring endpoint.

/** A histogram as exposed: cumulative buckets `[le, count]` in order, count and sum. */
export interface Histogram {
  buckets: Array<[number, number]>;
  count: number;
  sum: number;
}

/** The text of a /metrics endpoint; a failed scrape ends the bench. */
export async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return res.text();
}

const samples = (text: string, name: string) =>
  [...text.matchAll(new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`, 'gm'))].map((m) => ({
    labels: m[1] ?? '',
    value: Number(m[2]),
  }));

/** The sum of a counter's (or gauge's) samples over its label sets; 0 when absent. */
export function counterOf(text: string, name: string): number {
  return samples(text, name).reduce((n, s) => n + s.value, 0);
}

/** A histogram of the text (its label sets other than `le` summed). */
export function histogramOf(text: string, name: string): Histogram {
  const byLe = new Map<number, number>();
  for (const s of samples(text, `${name}_bucket`)) {
    const le = /(?:^|,)le="([^"]+)"/.exec(s.labels)?.[1];
    if (le === undefined) continue;
    const bound = le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le);
    byLe.set(bound, (byLe.get(bound) ?? 0) + s.value);
  }
  return {
    buckets: [...byLe].sort((a, b) => a[0] - b[0]),
    count: counterOf(text, `${name}_count`),
    sum: counterOf(text, `${name}_sum`),
  };
}

/** `a` + `sign` × `b`, bucket by bucket (the same buckets on both sides: one histogram's scrapes). */
export function combine(a: Histogram, b: Histogram, sign = 1): Histogram {
  const other = new Map(b.buckets);
  const les = [...new Set([...a.buckets.map(([le]) => le), ...other.keys()])].sort((x, y) => x - y);
  const mine = new Map(a.buckets);
  return {
    buckets: les.map((le) => [le, (mine.get(le) ?? 0) + sign * (other.get(le) ?? 0)]),
    count: a.count + sign * b.count,
    sum: a.sum + sign * b.sum,
  };
}

export const emptyHistogram = (): Histogram => ({ buckets: [], count: 0, sum: 0 });

/** Prometheus's histogram_quantile: linear interpolation inside the bucket holding the rank. */
export function quantile(buckets: Array<[number, number]>, q: number): number {
  const total = buckets[buckets.length - 1]?.[1] ?? 0;
  const rank = q * total;
  let prevLe = 0;
  let prevCount = 0;
  for (const [le, count] of buckets) {
    if (count >= rank) {
      if (!Number.isFinite(le)) return prevLe;
      return prevLe + ((le - prevLe) * (rank - prevCount)) / Math.max(1, count - prevCount);
    }
    prevLe = le;
    prevCount = count;
  }
  return prevLe;
}

/** nats-server's message counters so far (`/varz`): messages received from its clients and sent to them. */
export async function natsMessages(monitorUrl: string): Promise<{ in: number; out: number }> {
  const res = await fetch(`${monitorUrl}/varz`);
  if (!res.ok) throw new Error(`${monitorUrl}/varz: ${res.status}`);
  const varz = (await res.json()) as { in_msgs: number; out_msgs: number };
  return { in: varz.in_msgs, out: varz.out_msgs };
}

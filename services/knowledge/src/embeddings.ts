/** An embedding provider: OpenAI-compatible `POST {url}/embeddings`. */
export interface Embeddings {
  /** One vector per text; throws when the provider fails. */
  embed(texts: string[]): Promise<number[][]>;
}

/** The provider named by the configuration, or null when none is configured (search runs on text alone). */
export function createEmbeddings(cfg: {
  EMBEDDINGS_URL: string;
  EMBEDDINGS_MODEL: string;
  EMBEDDINGS_API_KEY: string;
}) {
  if (!cfg.EMBEDDINGS_URL) return null;
  const url = `${cfg.EMBEDDINGS_URL.replace(/\/+$/, '')}/embeddings`;
  const provider: Embeddings = {
    async embed(texts) {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(cfg.EMBEDDINGS_API_KEY ? { authorization: `Bearer ${cfg.EMBEDDINGS_API_KEY}` } : {}),
        },
        body: JSON.stringify({ model: cfg.EMBEDDINGS_MODEL, input: texts }),
        signal: AbortSignal.timeout(10_000),
      });
      if (!res.ok) throw new Error(`embeddings: HTTP ${res.status}`);
      const body = (await res.json()) as { data?: Array<{ embedding: number[]; index?: number }> };
      const data = body.data ?? [];
      if (data.length !== texts.length) throw new Error('embeddings: wrong count');
      return [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding);
    },
  };
  return provider;
}

/** The text of a note that is embedded (title and the start of the body). */
export function embeddingText(title: string, body: string): string {
  return `${title}\n\n${body}`.slice(0, 8000);
}

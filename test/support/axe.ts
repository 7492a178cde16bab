import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** axe-core's own build, read once: it is put into the page under test as it is. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The impacts a page must not have: anything worse than minor. */
const BLOCKING = new Set(['moderate', 'serious', 'critical']);

/** One violation as a failing test prints it: the rule, its impact, what it wants, where. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core (every rule but the experimental ones, best practices included: landmarks, one
 * h1, heading order, scrollable regions) on the page as it is now. The script goes in through
 * DevTools evaluation rather than a <script> tag, so the pages' CSP (script-src 'self') stays on.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    type Result = {
      violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }>;
    };
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<Result> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.map(String).join(' ')),
    }));
  });
}

/** Fails when axe-core finds a moderate, serious or critical violation on the page (the message lists them). */
export async function expectNoSeriousViolations(page: Page): Promise<void> {
  const found = (await axeViolations(page)).filter((v) => BLOCKING.has(v.impact ?? ''));
  expect(found, `axe on ${page.url()}`).toEqual([]);
}

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { accessLineOf, allCalls } from '@ksp/contracts';

const doc = readFileSync(new URL('../../../../../docs/api.md', import.meta.url), 'utf8');
const calls = allCalls;

/** docs/api.md is what outside callers read: it must say what the contract enforces. */
describe('docs/api.md', () => {
  it.each(calls.map((c) => [`${c.method} ${c.path}`, c] as const))(
    'documents %s with its scope and tokens',
    (_, def) => {
      const heading = `#### \`${def.method} ${def.path}\``;
      const at = doc.indexOf(heading);
      expect(
        at,
        `no section ${heading} (run npx tsx scripts/api-doc-access.ts after adding it)`,
      ).toBeGreaterThan(-1);
      const next = doc.indexOf('\n#### ', at + heading.length);
      const section = doc.slice(at, next < 0 ? undefined : next);
      expect(section).toContain(accessLineOf(def));
    },
  );
});

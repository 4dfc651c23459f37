import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { accessLineOf, allCalls, Code } from '@ksp/contracts';

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

/**
 * The codes a message is answered with, as the server's sources throw it through the
 * helpers of `platform/errors.ts` (`conflict('syslog.nameTaken', …)` answers 4090).
 */
function thrownCodes(): Map<string, Set<number>> {
  const helpers: Record<string, number> = {
    invalid: Code.INVALID,
    notFound: Code.NOT_FOUND,
    conflict: Code.CONFLICT,
    stateForbids: Code.STATE_FORBIDS,
    forbidden: Code.FORBIDDEN,
  };
  const found = new Map<string, Set<number>>();
  const src = fileURLToPath(new URL('../..', import.meta.url));
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
        const text = readFileSync(path, 'utf8');
        for (const m of text.matchAll(
          /\b(invalid|notFound|conflict|stateForbids|forbidden)\(\s*'(\w+\.[\w.]+)'/g,
        )) {
          const codes = found.get(m[2]!) ?? new Set<number>();
          codes.add(helpers[m[1]!]!);
          found.set(m[2]!, codes);
        }
      }
    }
  };
  walk(src);
  return found;
}

describe('the codes docs/api.md lists for each call', () => {
  /** Every "4090 `a.b`" (and "4000 `a.b`, `c.d`") of the calls' **Codes** lines. */
  const documented = doc
    .split('\n')
    .filter((line) => line.includes('**Codes**'))
    .flatMap((line) =>
      [...line.matchAll(/\b(\d{4}) `(\w+\.[\w.]+)`((?:, `\w+\.[\w.]+`)*)/g)].flatMap((m) =>
        [m[2]!, ...[...m[3]!.matchAll(/`([^`]+)`/g)].map((k) => k[1]!)].map((key) => ({
          code: Number(m[1]),
          key,
        })),
      ),
    );
  const server = thrownCodes();

  it('are codes of the code table', () => {
    expect(documented.length).toBeGreaterThan(100);
    const table = new Set<number>(Object.values(Code));
    expect(documented.filter((d) => !table.has(d.code))).toEqual([]);
  });

  it('are the codes the server answers with those messages', () => {
    // Only messages the server throws through one of the helpers; the others are not checked here.
    const wrong = documented
      .filter((d) => server.has(d.key) && !server.get(d.key)!.has(d.code))
      .map((d) => `${d.code} ${d.key} (the server answers ${[...server.get(d.key)!].join(' or ')})`);
    expect(server.get('syslog.nameTaken')).toEqual(new Set([Code.CONFLICT]));
    expect(wrong).toEqual([]);
  });
});

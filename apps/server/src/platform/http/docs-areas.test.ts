import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { areaOf, areas, builtInRoles, systemAreas } from '@ksp/contracts';

/** The docs outsiders read say which areas are global and what the built-in roles hold. */
describe('the docs on areas and roles', () => {
  const docs = (name: string) =>
    readFileSync(new URL(`../../../../../docs/${name}`, import.meta.url), 'utf8');
  const ticked = (text: string) => [...text.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]!);

  it('list exactly the system areas the server enforces (security-model.md and api.md)', () => {
    const security = docs('security-model.md');
    const system = security.slice(security.indexOf('- **System scope**'), security.indexOf('(`systemAreas`'));
    expect(ticked(system).sort()).toEqual([...systemAreas].sort());
    const domainAreas = security.slice(security.indexOf('- **Domain areas among the settings**'));
    const named = domainAreas.slice(0, domainAreas.indexOf('are not system areas'));
    expect(ticked(named)).toEqual(['backup-key', 'backup', 'scheduler']);
    for (const area of ticked(named)) expect(systemAreas.has(area as never)).toBe(false);

    const api = docs('api.md');
    const listed = api.slice(
      api.indexOf('The system areas:'),
      api.indexOf('Backup keys, backups and the scheduler'),
    );
    expect(ticked(listed).sort()).toEqual([...systemAreas].sort());
  });

  it('say which areas the Operator does not read (access-management.md)', () => {
    const said = /\*\*Operator\*\* \(reads all but ([^;]+);/.exec(docs('access-management.md'))?.[1];
    expect(said).toBeDefined();
    const names: Record<string, string> = { logs: 'log', alarms: 'alarm', syslog: 'syslog' };
    const words = said!.split(/,| and /).map((w) => w.trim().split(' ')[0]!);
    const named = words.flatMap((w) => (names[w] ? [names[w]] : []));
    const unread = areas.filter((a) => !builtInRoles.Operator.permissions.some((p) => p === `${a}:read`));
    expect(named.sort()).toEqual([...unread].sort());
    // Alarms watch the audit trail: who audits the operators stays out of their reach.
    expect(builtInRoles.Operator.permissions.map(areaOf)).not.toContain('alarm');
  });
});

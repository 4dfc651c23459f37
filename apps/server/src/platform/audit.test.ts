import { describe, expect, it } from 'vitest';
import { auditRow, createAuditWriter, type AuditEntry } from './audit.js';
import type { AuditTable } from './db/schema.js';
import { invalid, stateForbids } from './errors.js';
import { systemActor } from './system-actor.js';

const entry = { who: null, action: 'crypto.sign', target: 'k', result: 'success' as const, ip: '127.0.0.1' };

describe('audit record ids', () => {
  it('increase in the order records are made, within one millisecond and when the clock steps back', () => {
    const instant = new Date('2026-11-24T08:00:00.000Z');
    const ids = Array.from({ length: 2000 }, () => auditRow(entry, instant).id);
    const earlier = auditRow(entry, new Date('2026-11-24T07:59:59.000Z')).id;
    ids.push(earlier);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('carry the time of their record when the clock moves on', () => {
    const at = new Date(Date.UTC(2030, 0, 1));
    const id = auditRow(entry, at).id.replace(/-/g, '');
    expect(parseInt(id.slice(0, 12), 16)).toBe(at.getTime());
    expect(id[12]).toBe('7');
  });
});

describe('records of a caller', () => {
  const actor = systemActor({ username: 'ops', domainId: 'd1', domainName: 'Sales' });
  const signedIn = { ...actor, userId: 'u1', kind: 'session' as const };
  const rows: AuditEntry[] = [];
  const fake = {
    insertInto: () => ({ values: (row: AuditTable) => ({ execute: () => rows.push(row as never) }) }),
  };
  const writer = createAuditWriter(() => new Date('2026-11-29T08:00:00.000Z'));

  it('name the signed-in caller, its domain and address, stamped with the injected clock', async () => {
    rows.length = 0;
    await writer.byCaller(
      fake as never,
      signedIn,
      { ip: '10.0.0.9' },
      { action: 'key.update', target: 'k1' },
    );
    expect(rows).toMatchObject([
      {
        user_id: 'u1',
        username: 'ops',
        domain_name: 'Sales',
        source_ip: '10.0.0.9',
        result: 'success',
        severity: 'INFO',
        source: 'web',
        at: '2026-11-29T08:00:00.000Z',
      },
    ]);
  });

  it('record a refusal with its reason and parameters and pass the refusal on; success and other errors write nothing', async () => {
    rows.length = 0;
    const record = { action: 'hsm.update', target: 'hsm-1', details: { slot: 2 } };
    await expect(
      writer.refusalAudited(fake as never, actor, { ip: '' }, record, () =>
        Promise.reject(invalid('hsm.pinRefused', { field: 'pin' })),
      ),
    ).rejects.toMatchObject({ messageKey: 'hsm.pinRefused' });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ result: 'failure', severity: 'WARNING', source: 'scheduler' });
    expect(JSON.parse((rows[0] as unknown as AuditTable).details)).toEqual({
      slot: 2,
      reason: 'hsm.pinRefused',
      field: 'pin',
    });
    await expect(
      writer.refusalAudited(fake as never, actor, { ip: '' }, record, () => Promise.resolve(7)),
    ).resolves.toBe(7);
    await expect(
      writer.refusalAudited(fake as never, actor, { ip: '' }, record, () =>
        Promise.reject(new Error('disk')),
      ),
    ).rejects.toThrow('disk');
    const mapped = writer.refusalAudited(
      fake as never,
      actor,
      { ip: '' },
      record,
      () => Promise.reject(new Error('token gone')),
      () => stateForbids('hsm.library', { library: 'gone' }),
    );
    await expect(mapped).rejects.toMatchObject({ messageKey: 'hsm.library' });
    expect(rows).toHaveLength(2);
  });
});

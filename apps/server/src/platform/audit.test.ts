import { describe, expect, it } from 'vitest';
import { auditRow } from './audit.js';

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

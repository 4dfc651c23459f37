import { describe, expect, it } from 'vitest';
import { atThreshold, formatRecord, plainText } from './syslog.js';
import type { LogRecord } from './wire.js';

const record: LogRecord = {
  level: 'WARN',
  at: '2026-11-24T20:00:00.000Z',
  action: 'read',
  effect: 'deny',
  policy: 'pay|roll',
  guard_point: '/data',
  os_user: 'alice',
  process: '/usr/bin/cat',
  resource: '/data/a=b "x".txt',
  details: { uid: 1000 },
};

describe('syslog lines of the reference agent', () => {
  it('keeps the records at or above the threshold', () => {
    const levels = (['DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const).map((level) => ({
      ...record,
      level,
    }));
    expect(atThreshold(levels, 'WARN').map((r) => r.level)).toEqual(['WARN', 'ERROR', 'FATAL']);
    expect(atThreshold(levels, 'DEBUG')).toHaveLength(5);
  });

  it('writes RFC 5424 with the fields as structured data, escaped', () => {
    const line = formatRecord(record, 'RFC5424', 'host-1');
    expect(line).toMatch(/^<132>1 2026-11-24T20:00:00.000Z host-1 ksp-agent \d+ read \[ksp@32473 /);
    expect(line).toContain('resource="/data/a=b \\"x\\".txt"');
    expect(line.endsWith(plainText(record))).toBe(true);
  });

  it('writes PLAIN, CEF and LEEF lines', () => {
    expect(formatRecord(record, 'PLAIN', 'h')).toMatch(
      /^<132>2026-11-24T20:00:00.000Z h ksp-agent\[\d+\]: WARN read deny policy="pay\|roll"/,
    );
    const cef = formatRecord(record, 'CEF', 'h');
    expect(cef).toContain(' - CEF:0|KSP|ksp-agent|1.9.0|read|read deny|6|');
    expect(cef).toContain('fname=/data/a\\=b "x".txt');
    expect(cef).toContain('cs1=pay|roll');
    const leef = formatRecord(record, 'LEEF', 'h');
    expect(leef).toContain(
      ' - LEEF:2.0|KSP|ksp-agent|1.9.0|read|x09|devTime=2026-11-24T20:00:00.000Z\tsev=6\teffect=deny',
    );
  });
});

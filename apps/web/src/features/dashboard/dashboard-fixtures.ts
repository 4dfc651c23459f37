/** A full dashboard summary and operation series for page tests. */
export const summaryFixture = {
  version: '1.9.0',
  node: 'node-1',
  database: 'sqlite',
  started_at: '2026-01-10T00:00:00Z',
  uptime_seconds: 3600,
  domain: 'root',
  users: 7,
  domains: 2,
  audit_records: 42,
  active_sessions: 3,
  certificates: { valid: 12, expiring: 5, expiring_60: 6, expiring_90: 9 },
  recent: [],
  keys: {
    total: 11,
    by_state: [
      { state: 'in-use', count: 8 },
      { state: 'inactive', count: 1 },
      { state: 'disabled', count: 1 },
      { state: 'destroyed', count: 1 },
    ],
    by_family: [
      { family: 'symmetric', count: 6 },
      { family: 'RSA', count: 0 },
      { family: 'EC', count: 0 },
      { family: 'EdDSA', count: 0 },
      { family: 'SM', count: 2 },
      { family: 'PQC', count: 2 },
    ],
    by_algorithm: [
      { algorithm: 'AES-256', family: 'symmetric', count: 6 },
      { algorithm: 'ML-DSA-44', family: 'PQC', count: 2 },
      { algorithm: 'SM4', family: 'SM', count: 2 },
    ],
    rotation: { overdue: 1, due: 3 },
  },
  failed_logins_24h: 4,
  clients: { healthy: 0, warning: 0, error: 0, revoked: 0 },
  quantum: { status: 'normal', node: 'node-1' },
  nodes: [
    {
      name: 'node-1',
      version: '1.9.0',
      started_at: '2026-01-10T00:00:00Z',
      last_seen: '2026-01-10T01:00:00Z',
      up: true,
      uptime_seconds: 3600,
    },
    {
      name: 'node-0',
      version: '1.8.0',
      started_at: '2026-01-09T00:00:00Z',
      last_seen: '2026-01-09T01:00:00Z',
      up: false,
      uptime_seconds: 3600,
    },
  ],
  license: null,
  last_backup: null,
  hsm: null,
};

const zero = { encrypt: 0, decrypt: 0, sign: 0, verify: 0, mac: 0, wrap: 0, keygen: 0, other: 0 };
export const operationsFixture = {
  range: '24h',
  bucket_seconds: 300,
  from: '2026-01-09T01:05:00Z',
  to: '2026-01-10T01:05:00Z',
  points: [{ at: '2026-01-10T01:00:00Z', total: 3, counts: { ...zero, encrypt: 2, keygen: 1 } }],
  totals: { ...zero, encrypt: 2, keygen: 1 },
  total: 3,
};

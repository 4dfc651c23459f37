import type { CertRow, LocalCaRow } from '../../api/cert';

export const ROOT_ID = '11111111-1111-4111-8111-111111111111';
export const PENDING_ID = '22222222-2222-4222-8222-222222222222';

export function caRow(overrides: Partial<LocalCaRow> = {}): LocalCaRow {
  return {
    id: ROOT_ID,
    name: 'root-ca',
    cn: 'KSP Root CA',
    subject: 'CN=KSP Root CA',
    issuer: 'CN=KSP Root CA',
    algorithm: 'EC-P256',
    key_bits: 256,
    state: 'active',
    type: 'root',
    parent_id: null,
    parent_name: null,
    path_len: null,
    is_default: true,
    serial: '0a1b2c3d4e5f60718293',
    not_before: '2026-01-01T00:00:00Z',
    not_after: '2036-01-01T00:00:00Z',
    fingerprint: 'ab'.repeat(32),
    key_id: '33333333-3333-4333-8333-333333333333',
    issued: 2,
    crl_url: 'http://localhost/v1/ksp/cert/crl',
    ocsp_url: 'http://localhost/v1/ksp/cert/ocsp',
    created_at: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

let next = 0;

export function certRow(overrides: Partial<CertRow> = {}): CertRow {
  next += 1;
  return {
    id: `44444444-4444-4444-8444-${String(next).padStart(12, '0')}`,
    name: 'web',
    cn: 'web.example.com',
    subject: 'CN=web.example.com',
    issuer: 'CN=KSP Root CA',
    ca_id: ROOT_ID,
    ca_name: 'root-ca',
    purpose: 'server',
    usage: 'signature',
    algorithm: 'EC-P256',
    key_bits: 256,
    serial: '7f'.repeat(10),
    not_before: '2026-01-01T00:00:00Z',
    not_after: '2027-01-01T00:00:00Z',
    fingerprint: 'cd'.repeat(32),
    status: 'normal',
    expiring: false,
    revocation_reason: null,
    revoked_at: null,
    dns_names: ['web.example.com'],
    ip_addresses: [],
    emails: [],
    source: 'csr',
    key_id: null,
    has_private_key: false,
    exportable: false,
    created_at: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

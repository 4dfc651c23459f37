import type { KeyRow } from '../../api/key';

/** A key as the server answers it (AES-256, in use); tests override what they need. */
export function keyRow(overrides: Partial<KeyRow> = {}): KeyRow {
  return {
    id: '6f1c2b9e-4a57-4c1d-9f4e-0a1b2c3d4e5f',
    name: 'billing',
    algorithm: 'AES-256',
    family: 'AES',
    object_type: 'symmetric',
    size_bits: 256,
    version: 1,
    owner: 'admin',
    state: 'active',
    state_label: 'in-use',
    usage_mask: 0x3c,
    usages: ['encrypt', 'decrypt', 'wrap', 'unwrap'],
    exportable: false,
    deletable: true,
    linked_key_id: null,
    pqc_parameter_set: null,
    security_level: null,
    kmip_total: 0,
    operations: 0,
    description: '',
    labels: {},
    cte: null,
    kcv: 'A1B2C3',
    fingerprint: null,
    activation_date: '2026-01-10T12:00:00.000Z',
    deactivation_date: null,
    revocation_reason: null,
    revocation_message: null,
    destroyed_at: null,
    created_at: '2026-01-10T12:00:00.000Z',
    updated_at: '2026-01-10T12:00:00.000Z',
    ...overrides,
  };
}

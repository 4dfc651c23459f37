import type { CredentialRow, CredentialType } from '@ksp/contracts';
import type { CredentialTable } from '../../platform/db/schema.js';

/** A credential's metadata as the console shows it, expired or not at `now` (ms). */
export const credentialView = (row: CredentialTable, now: number): CredentialRow => ({
  id: row.id,
  name: row.name,
  description: row.description,
  tags: JSON.parse(row.tags) as string[],
  type: row.type as CredentialType,
  server_id: row.server_id,
  expires_at: row.expires_at,
  expired: row.expires_at !== null && Date.parse(row.expires_at) <= now,
  rotation_days: row.rotation_days,
  current_version: row.current_version,
  created_by: row.created_by,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

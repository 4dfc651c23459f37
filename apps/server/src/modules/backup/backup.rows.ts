import type { BackupRow, Language } from '@ksp/contracts';
import type { Executor } from '../../platform/db/database.js';
import type { BackupTable } from '../../platform/db/schema.js';
import { notFound } from '../../platform/errors.js';
import type { Actor } from '../../platform/http/route.js';
import { localized } from '../../platform/stored-message.js';
import { describeBackup } from './backup.description.js';
import { findBackup } from './backup.store.js';

/** A backup as the calls answer it, its description and error in `lang`. */
export const toRow = (r: BackupTable, lang: Language = 'en'): BackupRow => ({
  id: r.id,
  scope: r.scope,
  domain: r.domain_name,
  ...describeBackup(r.scope, r.description, lang),
  backup_key_id: r.backup_key_id,
  status: r.status,
  progress: r.progress,
  restore_status: r.restore_status,
  restored_at: r.restored_at,
  error: localized(r.error, lang),
  size: Number(r.size),
  sha256: r.sha256,
  counts: JSON.parse(r.counts) as Record<string, number>,
  format_version: r.format_version,
  source_version: r.source_version,
  uploaded: r.uploaded === 1,
  tied_to_hsm: r.tied_to_hsm === 1,
  created_at: r.created_at,
  created_by: r.created_by,
  finished_at: r.finished_at,
  node: r.node,
});

/** Whether the caller sees a backup: every one from the root domain, else its domain's, never a system one. */
export const visible = (
  who: Pick<Actor, 'systemScope' | 'domainId'>,
  r: Pick<BackupTable, 'scope' | 'domain_id'>,
) => who.systemScope || (r.scope !== 'system' && r.domain_id === who.domainId);

/** A backup the caller sees (4040 otherwise). */
export async function findVisible(db: Executor, who: Pick<Actor, 'systemScope' | 'domainId'>, id: string) {
  const row = await findBackup(db, id);
  if (!row || !visible(who, row)) throw notFound('backup.notFound', { id });
  return row;
}

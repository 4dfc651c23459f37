import { createAuditWriter, type AuditWriter } from '../../platform/audit.js';
import { createBackupCatalogue } from './backup.catalogue.js';
import { archiveFiles } from './backup.files.js';
import { createBackupRestore } from './backup.restore.js';
import { createBackupWriter } from './backup.writer.js';

/**
 * Backups and restore (docs/modules.md#backup-keys-and-backups, README.md), behind one service:
 * the calls on backups (`backup.catalogue.ts`), the backup job that writes archives
 * (`backup.writer.ts`) and the restore engine (`backup.restore.ts`).
 */
export function createBackupService(
  deps: Omit<
    Parameters<typeof createBackupWriter>[0] & Parameters<typeof createBackupRestore>[0],
    'files' | 'audit'
  > & {
    /** The module's audit writer (default: one on `clock`). */
    audit?: AuditWriter;
    /** Where archives are written and read (KSP_BACKUP_DIR). */
    backupDir: string;
  },
) {
  const parts = {
    ...deps,
    audit: deps.audit ?? createAuditWriter(deps.clock),
    files: archiveFiles(deps.backupDir),
  };
  const writer = createBackupWriter(parts);
  return {
    ...createBackupCatalogue({ ...parts, writer }),
    runJob: writer.runJob,
    ...createBackupRestore(parts),
  };
}

export type BackupService = ReturnType<typeof createBackupService>;

import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BackupTable } from '../../platform/db/schema.js';
import { stateForbids } from '../../platform/errors.js';

/** Where archives are kept (KSP_BACKUP_DIR): one `<id>.kspb` file per backup. */
export function archiveFiles(dir: string) {
  const fileOf = (id: string) => join(dir, `${id}.kspb`);
  return {
    fileOf,
    /** Whether this node has the backup's archive. */
    has: (id: string) => existsSync(fileOf(id)),
    /** The archive must be here; if it is not, the answer names the node that wrote it. */
    require(row: Pick<BackupTable, 'id' | 'node'>): void {
      if (!existsSync(fileOf(row.id)))
        throw stateForbids('backup.fileMissing', { id: row.id, node: row.node ?? '-' });
    },
    /** Makes the directory (owner only) if it is not there. */
    ensureDir: () => mkdirSync(dir, { recursive: true, mode: 0o700 }),
  };
}

export type ArchiveFiles = ReturnType<typeof archiveFiles>;

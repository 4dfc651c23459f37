import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { openDatabase, type DatabaseHandle, type OpenOptions } from '../platform/db/database.js';

/**
 * SQLite databases in folders of their own, one a test: `open` makes the folder and opens the
 * database in it; after each test the database is closed (unless `close` did it already) and
 * the folder removed.
 */
export function sqliteFiles() {
  let dir: string | null = null;
  let handle: DatabaseHandle | null = null;
  const close = async () => {
    await handle?.close();
    handle = null;
  };
  afterEach(async () => {
    await close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });
  return {
    open(options: Omit<OpenOptions, 'url' | 'dataDir'> = {}): { dir: string; handle: DatabaseHandle } {
      dir = mkdtempSync(join(tmpdir(), 'ksp-db-'));
      handle = openDatabase({ url: null, dataDir: dir, ...options });
      return { dir, handle };
    },
    close,
  };
}

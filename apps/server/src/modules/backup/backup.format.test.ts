import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKUP_FORMAT_VERSION, PRODUCT_VERSION } from '@ksp/contracts';
import { createArchiveWriter, newSalt, type ArchiveHeader } from './backup.format.js';

const dir = mkdtempSync(join(tmpdir(), 'ksp-archive-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const header = (): ArchiveHeader => ({
  format_version: BACKUP_FORMAT_VERSION,
  scope: 'domain',
  domain_id: 'd',
  domain_name: 'd',
  created_at: new Date().toISOString(),
  source_version: PRODUCT_VERSION,
  counts: {},
  backup_key_id: 'k',
  backup_key_kcv: '000000',
  salt: newSalt(),
  description: '',
});

describe('archive writer', () => {
  it('fails, and lets go, when its file cannot be created: never overwrites, never hangs', async () => {
    const path = join(dir, 'taken.part');
    writeFileSync(path, 'someone else');
    const writer = createArchiveWriter(path, randomBytes(32), header());
    await expect(writer.finish()).rejects.toThrow(/EEXIST/);
    // abort() after the stream failed and closed by itself resolves (it used to wait for a 'close' that never came).
    await expect(writer.abort()).resolves.toBeUndefined();
  });
});

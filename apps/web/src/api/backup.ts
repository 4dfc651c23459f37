import { api, type BackupFilter, type BackupKeyScope } from '@ksp/contracts';
import { call, upload } from './client';
import { download } from './download';

export const backupKeys = {
  all: ['backup'] as const,
  keys: ['backup', 'keys'] as const,
  backups: ['backup', 'backups'] as const,
};

export function fetchBackupKeys(query: { page: number; page_size: number }) {
  return call(api.backupKey.list, { query });
}

export function createBackupKey(body: { name: string; scope: BackupKeyScope; is_default: boolean }) {
  return call(api.backupKey.create, { body });
}

/** The key file; the password and its hint travel in the body, never in the URL. */
export function downloadBackupKey(body: { id: string; password: string; hint: string }) {
  return download(api.backupKey.download, undefined as never, body);
}

/** The dialog shows the server's refusal (wrong password, not a key file) itself: `silent`. */
export function uploadBackupKey(body: { file: string; password: string }) {
  return call(api.backupKey.upload, { body }, { silent: true });
}

export function setDefaultBackupKey(id: string) {
  return call(api.backupKey.setDefault, { body: { id } });
}

export function deleteBackupKeys(ids: string[]) {
  return call(api.backupKey.delete, { body: { ids } });
}

export function fetchBackups(query: { page: number; page_size: number }) {
  return call(api.backup.list, { query });
}

export function fetchBackup(id: string) {
  return call(api.backup.detail, { query: { id } });
}

export function createBackup(body: {
  scope: 'system' | 'domain' | 'partial';
  description: string;
  backup_key_id?: string;
  filters?: Partial<BackupFilter>;
}) {
  return call(api.backup.create, { body }, { silent: true });
}

export function downloadBackup(id: string) {
  return download(api.backup.download, { id });
}

export function uploadBackup(file: File) {
  return upload(api.backup.upload, file, { filename: file.name });
}

export function restoreBackup(id: string) {
  return call(api.backup.restore, { body: { id } });
}

export function deleteBackups(ids: string[]) {
  return call(api.backup.delete, { body: { ids } });
}

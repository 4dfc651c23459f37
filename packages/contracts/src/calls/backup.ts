import { z } from 'zod';
import { defineCall } from '../call.js';
import { Id, IdList, PageQuery, pageOf } from '../common.js';

/**
 * Backup keys and backups (docs/modules.md#backup-keys-and-backups). A backup is an archive encrypted and
 * authenticated under a backup key (apps/server/src/modules/backup/README.md describes the
 * format); a backup key leaves the server only as a file protected by a password.
 */
export const backupScopes = ['system', 'domain', 'partial', 'key_rotation'] as const;
export type BackupScope = (typeof backupScopes)[number];
export const backupKeyScopes = ['system', 'domain'] as const;
export type BackupKeyScope = (typeof backupKeyScopes)[number];
export const backupStatuses = ['backing_up', 'completed', 'failed'] as const;
export const restoreStatuses = ['restoring', 'restored', 'failed'] as const;

/** The newest archive format this version writes and reads. */
export const BACKUP_FORMAT_VERSION = 1;

const Name = z.string().trim().min(1).max(64);
const Password = z.string().min(8).max(128).describe('the file password (at least 8 characters)');
const Hint = z
  .string()
  .trim()
  .max(200)
  .default('')
  .describe('a reminder of the password, stored in the file in clear');

export const BackupKeyRow = z.object({
  id: Id,
  name: z.string(),
  scope: z.enum(backupKeyScopes),
  domain: z.string().describe('the domain of a domain-scope key; the root domain for a system key'),
  is_default: z.boolean(),
  kcv: z.string().describe('key check value: the first 3 bytes of AES-256 over a zero block, hex'),
  created_at: z.string(),
  created_by: z.string(),
  orphaned: z
    .boolean()
    .describe(
      "a domain key whose domain no longer exists (removed, or not in a system backup restored since): only root domain sessions see it, to download it, restore that domain's backups with it, or delete it",
    ),
});
export type BackupKeyRow = z.infer<typeof BackupKeyRow>;

export const BackupFilter = z
  .object({
    key_ids: z.array(Id).max(10_000).default([]).describe('keys to include by id'),
    key_name: z
      .string()
      .trim()
      .max(128)
      .default('')
      .describe('keys whose name contains this text (case-sensitive); empty: none by name'),
    cert_ids: z.array(Id).max(10_000).default([]).describe('certificates to include by id'),
  })
  .describe('what a partial domain backup holds');
export type BackupFilter = z.infer<typeof BackupFilter>;

export const BackupCounts = z.record(z.string(), z.number().int()).describe('rows per kind of object');

export const BackupRow = z.object({
  id: Id,
  scope: z.enum(backupScopes),
  domain: z.string().describe('the domain backed up (the root domain for a system backup)'),
  description: z
    .string()
    .describe("as typed; one the server made (a key rotation's) in the caller's language"),
  description_message: z
    .object({
      key: z.string().describe('the message key, e.g. backup.rotationDescription'),
      params: z.record(z.string(), z.union([z.string(), z.number()])),
    })
    .nullable()
    .describe(
      'a description the server made, as its message key and parameters (for a client to put in its own language); null for one a person typed',
    ),
  backup_key_id: z.string(),
  status: z.enum(backupStatuses),
  progress: z.number().int().min(0).max(100),
  restore_status: z.enum(restoreStatuses).nullable(),
  restored_at: z.string().nullable(),
  error: z.string().nullable().describe('why the backup or the last restore failed'),
  size: z.number().int().describe('bytes of the archive'),
  sha256: z.string().describe('SHA-256 of the archive file, hex: compare it with the downloaded file'),
  counts: BackupCounts,
  format_version: z.number().int(),
  source_version: z.string(),
  uploaded: z.boolean().describe('brought in by upload rather than made here'),
  tied_to_hsm: z
    .boolean()
    .describe(
      'bound to the HSM: restorable only on a server bound to the same HSM key, with the backup key too',
    ),
  created_at: z.string(),
  created_by: z.string(),
  finished_at: z.string().nullable(),
  node: z
    .string()
    .nullable()
    .describe(
      'the node whose backup directory (KSP_BACKUP_DIR) holds the archive; null while the backup waits for its turn',
    ),
});
export type BackupRow = z.infer<typeof BackupRow>;

export const backupKeyCalls = {
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/backup-key/list',
    summary:
      'Backup keys: system keys (root domain sessions only) and the current domain’s keys; never their material',
    tag: 'backup',
    access: 'backup-key:read',
    query: PageQuery,
    data: pageOf(BackupKeyRow),
  }),
  create: defineCall({
    method: 'POST',
    path: '/v1/ksp/backup-key/create',
    summary: 'Generate a backup key (AES-256); the first of its scope becomes the default',
    tag: 'backup',
    access: 'backup-key:write',
    changesAccess: false,
    body: z.object({
      name: Name,
      scope: z
        .enum(backupKeyScopes)
        .describe('system: only a root domain session; domain: the current domain'),
      is_default: z.boolean().default(false),
    }),
    data: BackupKeyRow,
  }),
  download: defineCall({
    method: 'POST',
    path: '/v1/ksp/backup-key/download',
    summary:
      'The backup key as a file (JSON) sealed under a key derived from the password with scrypt (parameters in the file)',
    tag: 'backup',
    access: 'backup-key:write',
    changesAccess: false,
    download: ['application/json'],
    body: z.object({ id: Id, password: Password, hint: Hint }),
    data: z.never(),
  }),
  upload: defineCall({
    method: 'POST',
    path: '/v1/ksp/backup-key/upload',
    summary: 'Bring in a backup key file with its password (the scope is read from the file)',
    tag: 'backup',
    access: 'backup-key:write',
    changesAccess: false,
    body: z.object({
      file: z.string().min(1).max(16_384).describe('the backup key file as downloaded (JSON text)'),
      password: z.string().min(1).max(128),
      name: Name.optional().describe('default: the name in the file'),
    }),
    data: BackupKeyRow,
  }),
  setDefault: defineCall({
    method: 'POST',
    path: '/v1/ksp/backup-key/set-default',
    summary: 'Make a backup key the default of its scope (new backups use it unless told otherwise)',
    tag: 'backup',
    access: 'backup-key:write',
    changesAccess: false,
    body: z.object({ id: Id }),
    data: BackupKeyRow,
  }),
  delete: defineCall({
    method: 'POST',
    path: '/v1/ksp/backup-key/delete',
    summary: 'Delete backup keys; refused for a key that is the only one able to open an existing backup',
    tag: 'backup',
    access: 'backup-key:write',
    changesAccess: false,
    body: z.object({ ids: IdList }),
    data: z.object({ deleted: z.number().int() }),
  }),
};

export const backupCalls = {
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/backup/list',
    summary: 'Backups of the current domain (and system backups for a root domain session), newest first',
    tag: 'backup',
    access: 'backup:read',
    query: PageQuery.extend({ scope: z.enum(backupScopes).optional() }),
    data: pageOf(BackupRow),
  }),
  detail: defineCall({
    method: 'GET',
    path: '/v1/ksp/backup/detail',
    summary: 'One backup: status and progress of the backup and of its last restore',
    tag: 'backup',
    access: 'backup:read',
    query: z.object({ id: Id }),
    data: BackupRow,
  }),
  create: defineCall({
    method: 'POST',
    path: '/v1/ksp/backup/create',
    summary:
      'Start a backup (answers at once with status backing_up; poll detail). system: every domain, settings, users, roles, certificates and keys (root domain sessions only); domain: the current domain’s keys and certificates; partial: those chosen by the filter',
    tag: 'backup',
    access: 'backup:write',
    changesAccess: false,
    body: z.object({
      scope: z.enum(['system', 'domain', 'partial']),
      description: z.string().trim().max(200).default(''),
      backup_key_id: Id.optional().describe('default: the default backup key of the scope'),
      filters: BackupFilter.optional().describe('partial backups only'),
      tied_to_hsm: z
        .boolean()
        .default(false)
        .describe(
          'system backups of a server bound to an HSM: the archive also needs a secret sealed by the HSM key, so only a server reaching the same HSM key restores it',
        ),
    }),
    data: BackupRow,
  }),
  download: defineCall({
    method: 'GET',
    path: '/v1/ksp/backup/download',
    summary: 'The archive file (encrypted; useless without its backup key)',
    tag: 'backup',
    access: 'backup:read',
    changesAccess: false,
    download: ['application/octet-stream'],
    query: z.object({ id: Id }),
    data: z.never(),
  }),
  upload: defineCall({
    method: 'POST',
    path: '/v1/ksp/backup/upload',
    summary:
      'Bring in an archive (multipart field "file"); its header is checked (format version, scope, backup key) before it is kept',
    tag: 'backup',
    access: 'backup:write',
    changesAccess: false,
    multipart: true,
    data: BackupRow,
  }),
  restore: defineCall({
    method: 'POST',
    path: '/v1/ksp/backup/restore',
    summary:
      'Restore a backup, all or nothing. A system restore replaces every domain, user, role, setting, key and certificate and signs everyone out; a domain restore replaces that domain’s keys and certificates only',
    tag: 'backup',
    access: 'backup:write',
    body: z.object({ id: Id }),
    data: BackupRow,
  }),
  delete: defineCall({
    method: 'POST',
    path: '/v1/ksp/backup/delete',
    summary: 'Delete backups and their files',
    tag: 'backup',
    access: 'backup:write',
    changesAccess: false,
    body: z.object({ ids: IdList }),
    data: z.object({ deleted: z.number().int() }),
  }),
};

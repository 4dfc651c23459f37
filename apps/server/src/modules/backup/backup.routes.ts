import type { FastifyInstance } from 'fastify';
import { api } from '@ksp/contracts';
import { registerCall, StreamedFile, type Gatekeeper } from '../../platform/http/route.js';
import { Readable } from 'node:stream';
import type { BackupKeyService } from './backup-key.service.js';
import type { BackupService } from './backup.service.js';

/** The largest archive an upload takes (a million keys is about 1 GiB). */
const UPLOAD_MAX_BYTES = 8 * 1024 * 1024 * 1024;

export function backupRoutes(
  app: FastifyInstance,
  gate: Gatekeeper,
  keys: BackupKeyService,
  backups: BackupService,
): void {
  registerCall(app, gate, api.backupKey.list, ({ actor, query }) =>
    keys.list(actor, query.page, query.page_size),
  );
  registerCall(app, gate, api.backupKey.create, ({ actor, meta, body }) => keys.create(actor, meta, body));
  registerCall(app, gate, api.backupKey.download, async ({ actor, meta, body }) => {
    const file = await keys.download(actor, meta, body);
    return new StreamedFile(file.filename, 'application/json', Readable.from([file.text]));
  });
  registerCall(app, gate, api.backupKey.upload, ({ actor, meta, body }) => keys.upload(actor, meta, body));
  registerCall(app, gate, api.backupKey.setDefault, ({ actor, meta, body }) =>
    keys.setDefault(actor, meta, body.id),
  );
  registerCall(app, gate, api.backupKey.delete, ({ actor, meta, body }) =>
    keys.remove(actor, meta, body.ids),
  );

  registerCall(app, gate, api.backup.list, ({ actor, meta, query }) => backups.list(actor, meta, query));
  registerCall(app, gate, api.backup.detail, ({ actor, meta, query }) =>
    backups.detail(actor, meta, query.id),
  );
  registerCall(app, gate, api.backup.create, ({ actor, meta, body }) => backups.create(actor, meta, body));
  registerCall(app, gate, api.backup.download, ({ actor, meta, query }) =>
    backups.download(actor, meta, query.id),
  );
  registerCall(app, gate, api.backup.upload, async ({ actor, meta, request }) => {
    if (!request.isMultipart()) return backups.upload(actor, meta, null);
    const part = await request.file({ limits: { fileSize: UPLOAD_MAX_BYTES, files: 1 } });
    if (!part || part.fieldname !== 'file') return backups.upload(actor, meta, null);
    return backups.upload(actor, meta, part.file);
  });
  registerCall(app, gate, api.backup.restore, ({ actor, meta, body }) =>
    backups.restore(actor, meta, body.id),
  );
  registerCall(app, gate, api.backup.delete, ({ actor, meta, body }) =>
    backups.remove(actor, meta, body.ids),
  );
}

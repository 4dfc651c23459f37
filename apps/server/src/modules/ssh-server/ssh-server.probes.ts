import type { api, Input } from '@ksp/contracts';
import { KspError, stateForbids } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import { about, type ServerParts } from './ssh-server.scope.js';
import type { HostKey } from './ssh-server.ssh.js';
import { updateServer } from './ssh-server.store.js';
import { createProbeLimiter } from './ssh-server.targets.js';
import { serverView } from './ssh-server.view.js';

/** Whether an error is the changed host key that an ERROR record reports. */
export const hostKeyChanged = (err: unknown) =>
  err instanceof KspError && err.messageKey === 'server.hostKeyChanged';

/** Looking at servers over SSH (README.md): fetch and confirm the host key, the connection test. */
export function createProbes(deps: ServerParts) {
  const { db, clock, audit, scope, connections } = deps;
  const probeLimit = createProbeLimiter(() => clock().getTime());

  /** The caller's probe counted before anything is awaited (parallel calls cannot all pass): its refusal, if any. */
  function countProbe(actor: Actor): KspError | null {
    try {
      probeLimit(actor.userId);
      return null;
    } catch (err) {
      if (!(err instanceof KspError)) throw err;
      return err;
    }
  }

  return {
    async fetchFingerprint(
      actor: Actor,
      meta: RequestMeta,
      body: Input<typeof api.sshServer.fetchFingerprint>,
    ) {
      const limited = countProbe(actor);
      const row = body.id !== undefined ? await scope.find(actor, body.id) : null;
      const host = row?.host ?? body.host ?? '';
      const port = row?.port ?? body.port;
      const target = row ?? { id: null, name: `${host}:${port}` };
      let key: HostKey;
      try {
        if (limited) throw limited;
        key = await connections.hostKey(host, port);
      } catch (err) {
        throw await scope.failed(actor, meta, 'server.fetch-fingerprint', target, err);
      }
      await audit.byCaller(
        db,
        actor,
        meta,
        about('server.fetch-fingerprint', target, { host: `${host}:${port}`, fingerprint: key.fingerprint }),
      );
      return {
        fingerprint: key.fingerprint,
        key_type: key.keyType,
        pinned: row?.host_key_fingerprint ?? null,
      };
    },

    async confirmFingerprint(actor: Actor, meta: RequestMeta, id: string, fingerprint: string) {
      const limited = countProbe(actor);
      const row = await scope.find(actor, id);
      let key: HostKey;
      try {
        if (limited) throw limited;
        key = await connections.hostKey(row.host, row.port);
        if (key.fingerprint !== fingerprint)
          throw stateForbids('server.fingerprintMismatch', {
            actual: key.fingerprint,
            expected: fingerprint,
          });
      } catch (err) {
        throw await scope.failed(actor, meta, 'server.confirm-fingerprint', row, err, 'ERROR');
      }
      await db.transaction().execute(async (trx) => {
        await updateServer(trx, row.id, {
          host_key_fingerprint: key.fingerprint,
          host_key_type: key.keyType,
          updated_at: clock().toISOString(),
        });
        await audit.byCaller(
          trx,
          actor,
          meta,
          about('server.confirm-fingerprint', row, {
            fingerprint: key.fingerprint,
            previous: row.host_key_fingerprint ?? '',
          }),
        );
      });
      return serverView(await scope.find(actor, row.id));
    },

    /** Connection test: log in, run `id`, answer what it printed; audited either way. */
    async test(actor: Actor, meta: RequestMeta, id: string) {
      const row = await scope.find(actor, id);
      const started = Date.now();
      let output: string;
      try {
        const client = await connections.connect(actor, row);
        try {
          const result = await connections.exec(row, client, 'id');
          if (result.status !== 0)
            throw stateForbids('server.commandFailed', {
              command: 'id',
              status: result.status ?? -1,
              output: result.stderr.trim().slice(0, 300),
            });
          output = result.stdout.trim().slice(0, 1000);
        } finally {
          client.end();
        }
      } catch (err) {
        throw await scope.failed(
          actor,
          meta,
          'server.test',
          row,
          err,
          hostKeyChanged(err) ? 'ERROR' : undefined,
        );
      }
      await audit.byCaller(db, actor, meta, about('server.test', row));
      return { output, elapsed_ms: Date.now() - started };
    },
  };
}
